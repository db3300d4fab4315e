package cluster

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/tools/cache"

	monitoringv1 "github.com/setpoint-dev/setpoint/pkg/apis/monitoring/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	monitoringac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/monitoring/v1"
	monitoringlisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/monitoring/v1"
)

// podMonitorAPI is the Prometheus Operator's PodMonitor, which carries
// monitoring: without it, clusters asking for monitoring wait.
var podMonitorAPI = informers.OptionalAPI{
	Project: "Prometheus Operator", Group: "monitoring.coreos.com", Version: "v1", Resource: "podmonitors", Kind: "PodMonitor",
	Without: "clusters asking for monitoring wait with " + pgv1.ReasonMonitoringUnavailable,
}

// The labels CloudNativePG puts on its instance pods, and the name of
// their metrics port: what CNPG's monitoring documentation tells users to
// select now that it deprecates creating the PodMonitor itself
// (spec.monitoring.enablePodMonitor). The role label keeps PgBouncer pods,
// which carry the cluster label and a metrics port too, out.
const (
	cnpgClusterLabel = "cnpg.io/cluster"
	cnpgPodRoleLabel = "cnpg.io/podRole"
	cnpgRoleInstance = "instance"
	cnpgMetricsPort  = "metrics"
)

// podMonitorComponent keeps the PodMonitor <cluster>-metrics while
// monitoring is enabled, and removes it (if ours) when it is not.
type podMonitorComponent struct{}

// podMonitorSeen is the component's part of the snapshot.
type podMonitorSeen struct {
	cur *monitoringv1.PodMonitor
	// crdMissing: the Prometheus Operator's CRD is not served, so there is
	// no informer, and nothing to write to.
	crdMissing bool
}

var podMonitorPart = part[podMonitorSeen]{"podMonitor"}

// API declares the optional CRD the component needs.
func (podMonitorComponent) API() informers.OptionalAPI { return podMonitorAPI }

// Watch caches the PodMonitors, when their CRD is served.
func (podMonitorComponent) Watch(w wiring) (reader, []informers.Registration) {
	missing := !w.inf.Served(podMonitorAPI)
	var inf cache.SharedIndexInformer
	lister := monitoringlisters.NewPodMonitorLister(informers.EmptyIndexer())
	if !missing {
		pm := w.inf.Setpoint.Monitoring().V1().PodMonitors()
		inf, lister = pm.Informer(), pm.Lister()
	}
	read := func(pc *pgv1.PostgresCluster, o *observation) error {
		cur, err := informers.IgnoreNotFound(lister.PodMonitors(pc.Namespace).Get(pc.Name + podMonitorSuffix))
		if err != nil {
			return err
		}
		podMonitorPart.set(o, podMonitorSeen{cur: cur, crdMissing: missing})
		return nil
	}
	if inf == nil {
		return read, nil
	}
	return read, []informers.Registration{informers.On(inf, w.owned)}
}

func (podMonitorComponent) Name() string            { return "podMonitor" }
func (podMonitorComponent) Condition() string       { return pgv1.ConditionPodMonitorReady }
func (podMonitorComponent) Requires() []contractKey { return []contractKey{contractCNPGCluster} }
func (podMonitorComponent) Provides() []contractKey { return nil }

func (podMonitorComponent) Reconcile(ctx context.Context, p *pass) error {
	seen := podMonitorPart.of(p.obs)
	cur := seen.cur
	if !p.want.MonitoringOn {
		if cur == nil || !ownership.IsControlledBy(cur, p.cluster.UID) {
			return nil
		}
		err := p.deps.pg.MonitoringV1().PodMonitors(cur.Namespace).Delete(ctx, cur.Name, ownership.DeleteOf(cur))
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete pod monitor: %w", err)
		}
		return nil
	}
	if seen.crdMissing {
		return nil // nothing to write to; Observe says so
	}
	client := p.deps.pg.MonitoringV1().PodMonitors(p.cluster.Namespace)
	cur, err := claimCached(ctx, p, "PodMonitor", cur, client, p.name(podMonitorSuffix))
	if err != nil {
		return err
	}
	if cur != nil && podMonitorMatches(cur, p) {
		return nil
	}
	if _, err := client.Apply(ctx, desiredPodMonitor(p), applyOpts); err != nil {
		return fmt.Errorf("apply pod monitor: %w", err)
	}
	return nil
}

func (podMonitorComponent) Observe(_ context.Context, p *pass, err error) health {
	if h, ok := conflictHealth(pgv1.ReasonPodMonitorConflict, err); ok {
		return h
	}
	if err == nil && p.want.MonitoringOn && podMonitorPart.of(p.obs).crdMissing {
		// Not an error to retry: the operator restarts its controllers, and
		// so revisits every cluster, when the CRD appears.
		return waiting(pgv1.PhasePending, pgv1.ReasonMonitoringUnavailable, podMonitorAPI.Missing(), 0)
	}
	if err != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonPodMonitorError, err.Error(), 0)
	}
	if !p.want.MonitoringOn {
		return ready(pgv1.ReasonNotConfigured, "monitoring disabled")
	}
	return ready(pgv1.ReasonPodMonitorApplied, fmt.Sprintf("PodMonitor %q", p.name(podMonitorSuffix)))
}

// desiredPodMonitor is the PodMonitor CNPG recommends for a Cluster: its
// instance pods, scraped on their metrics port.
func desiredPodMonitor(p *pass) *monitoringac.PodMonitorApplyConfiguration {
	return monitoringac.PodMonitor(p.name(podMonitorSuffix), p.cluster.Namespace).
		WithLabels(ownership.ManagedLabels(ownership.ClusterLabel, p.cluster.Name)).
		WithOwnerReferences(ownership.OwnerRefApply(p.cluster, gvk)).
		WithSpec(monitoringac.PodMonitorSpec().
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(instanceSelector(p.cluster.Name))).
			WithPodMetricsEndpoints(monitoringac.PodMetricsEndpoint().WithPort(cnpgMetricsPort)))
}

func instanceSelector(cluster string) map[string]string {
	return map[string]string{cnpgClusterLabel: cluster, cnpgPodRoleLabel: cnpgRoleInstance}
}

// podMonitorMatches compares only the fields we set.
func podMonitorMatches(cur *monitoringv1.PodMonitor, p *pass) bool {
	s := cur.Spec
	want := instanceSelector(p.cluster.Name)
	return ownership.IsControlledBy(cur, p.cluster.UID) &&
		len(s.Selector.MatchExpressions) == 0 && mapsEqualNil(s.Selector.MatchLabels, want) &&
		len(s.PodMetricsEndpoints) == 1 && s.PodMetricsEndpoints[0].Port != nil &&
		*s.PodMetricsEndpoints[0].Port == cnpgMetricsPort
}

// Release keeps the PodMonitor that keeps the retained CNPG Cluster's
// metrics scraped.
func (podMonitorComponent) Release(ctx context.Context, t *teardown) error {
	return releaseChild(ctx, t, "PodMonitor", podMonitorPart.of(t.obs).cur, t.deps.pg.MonitoringV1().PodMonitors(t.pc.Namespace).Patch)
}
