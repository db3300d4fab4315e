package cluster

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// cnpgMetricsPortNumber is the port CloudNativePG's instance manager
// serves /metrics on (its port named cnpgMetricsPort).
const cnpgMetricsPortNumber = 9187

// The annotations Prometheus's widely used "kubernetes-service-endpoints"
// scrape job reads: it scrapes each endpoint of a Service that asks for
// it, on that port and path.
const (
	promScrapeAnnotation = "prometheus.io/scrape"
	promPortAnnotation   = "prometheus.io/port"
	promPathAnnotation   = "prometheus.io/path"
)

// metricsServiceComponent keeps the headless Service <cluster>-metrics
// over the instances' metrics port while monitoring.service is on, and
// removes it (if ours) when it is not. It is the Service a Prometheus
// without the Prometheus Operator discovers the instances by.
type metricsServiceComponent struct{}

var metricsServicePart = part[*corev1.Service]{"metricsService"}

// Watch caches our Services: the core informers hold only what setpoint
// labels as its own, so a foreign Service of the name is found by claim.
func (metricsServiceComponent) Watch(w wiring) (reader, []informers.Registration) {
	inf := w.inf.Kube.Core().V1().Services()
	lister := inf.Lister()
	read := func(pc *pgv1.PostgresCluster, o *observation) error {
		cur, err := informers.IgnoreNotFound(lister.Services(pc.Namespace).Get(pc.Name + metricsServiceSuffix))
		if err != nil {
			return err
		}
		metricsServicePart.set(o, cur)
		return nil
	}
	return read, []informers.Registration{informers.On(inf.Informer(), w.owned)}
}

func (metricsServiceComponent) Name() string            { return "metricsService" }
func (metricsServiceComponent) Condition() string       { return pgv1.ConditionMetricsServiceReady }
func (metricsServiceComponent) Requires() []contractKey { return nil }
func (metricsServiceComponent) Provides() []contractKey { return nil }

// metricsServiceOn is monitoring.service of the merged settings.
func metricsServiceOn(p *pass) bool {
	m := p.want.Settings.Monitoring
	return m != nil && m.Service != nil && *m.Service
}

func (metricsServiceComponent) Reconcile(ctx context.Context, p *pass) error {
	cur := metricsServicePart.of(p.obs)
	client := p.deps.kube.CoreV1().Services(p.cluster.Namespace)
	if !metricsServiceOn(p) {
		if cur == nil || !ownership.IsControlledBy(cur, p.cluster.UID) {
			return nil
		}
		if err := client.Delete(ctx, cur.Name, ownership.DeleteOf(cur)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete metrics Service: %w", err)
		}
		return nil
	}
	cur, err := claim(ctx, p, "Service", cur, client, p.name(metricsServiceSuffix))
	if err != nil {
		return err
	}
	if cur != nil && metricsServiceMatches(cur, p) {
		return nil
	}
	if _, err := client.Apply(ctx, desiredMetricsService(p), applyOpts); err != nil {
		return fmt.Errorf("apply metrics Service: %w", err)
	}
	return nil
}

func (metricsServiceComponent) Observe(_ context.Context, p *pass, err error) health {
	if h, ok := conflictHealth(pgv1.ReasonMetricsServiceConflict, err); ok {
		return h
	}
	if err != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonMetricsServiceError, err.Error(), 0)
	}
	if !metricsServiceOn(p) {
		return ready(pgv1.ReasonNotConfigured, "monitoring.service is off")
	}
	return ready(pgv1.ReasonMetricsServiceApplied, fmt.Sprintf("Service %q", p.name(metricsServiceSuffix)))
}

// desiredMetricsService is headless: scrapers want every instance, not
// one picked by a virtual IP.
func desiredMetricsService(p *pass) *corev1ac.ServiceApplyConfiguration {
	return corev1ac.Service(p.name(metricsServiceSuffix), p.cluster.Namespace).
		WithLabels(ownership.ManagedLabels(ownership.ClusterLabel, p.cluster.Name)).
		WithAnnotations(scrapeAnnotations()).
		WithOwnerReferences(ownership.OwnerRefApply(p.cluster, gvk)).
		WithSpec(corev1ac.ServiceSpec().
			WithClusterIP(corev1.ClusterIPNone).
			WithSelector(instanceSelector(p.cluster.Name)).
			WithPorts(corev1ac.ServicePort().
				WithName(cnpgMetricsPort).
				WithProtocol(corev1.ProtocolTCP).
				WithPort(cnpgMetricsPortNumber).
				WithTargetPort(intstr.FromString(cnpgMetricsPort))))
}

func scrapeAnnotations() map[string]string {
	return map[string]string{
		promScrapeAnnotation: "true",
		promPortAnnotation:   strconv.Itoa(cnpgMetricsPortNumber),
		promPathAnnotation:   "/metrics",
	}
}

// metricsServiceMatches compares only the fields we set.
func metricsServiceMatches(cur *corev1.Service, p *pass) bool {
	s := cur.Spec
	for k, v := range scrapeAnnotations() {
		if cur.Annotations[k] != v {
			return false
		}
	}
	return ownership.IsControlledBy(cur, p.cluster.UID) &&
		ownership.HasLabels(cur.Labels, ownership.ManagedLabels(ownership.ClusterLabel, p.cluster.Name)) &&
		s.ClusterIP == corev1.ClusterIPNone &&
		mapsEqualNil(s.Selector, instanceSelector(p.cluster.Name)) &&
		len(s.Ports) == 1 && s.Ports[0].Name == cnpgMetricsPort && s.Ports[0].Port == cnpgMetricsPortNumber &&
		s.Ports[0].Protocol == corev1.ProtocolTCP && s.Ports[0].TargetPort == intstr.FromString(cnpgMetricsPort)
}

// Release keeps the Service that lets the retained CNPG Cluster's
// instances be scraped.
func (metricsServiceComponent) Release(ctx context.Context, t *teardown) error {
	return releaseChild(ctx, t, "Service", metricsServicePart.of(t.obs), t.deps.kube.CoreV1().Services(t.pc.Namespace).Patch)
}
