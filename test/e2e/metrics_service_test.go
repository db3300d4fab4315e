package e2e_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// monitoring.service keeps a headless Service <cluster>-metrics over the
// instances' metrics port, annotated for Prometheus's annotation-based
// discovery and owned by the PostgresCluster. The class turns it on and
// the cluster turns only the PodMonitor off: the two switches merge one by
// one. A Service of the name that setpoint did not create is never
// written; Retain keeps ours for the next cluster of the name; off
// removes it.
func TestMonitoringMetricsService(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "metrics-svc-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
		Monitoring: &pgv1.MonitoringSpec{Service: ptr.To(true)}})
	pc := newCluster(t, ns, "shop", class, pgv1.ClusterSettings{
		Monitoring: &pgv1.MonitoringSpec{Enabled: ptr.To(false)}}, pgv1.DeletionPolicyDelete)
	c := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	testkit.ExpectReason(t, c.Status.Conditions, pgv1.ConditionMetricsServiceReady, pgv1.ReasonMetricsServiceApplied, `"shop-metrics"`)
	testkit.ExpectReason(t, c.Status.Conditions, pgv1.ConditionPodMonitorReady, pgv1.ReasonNotConfigured, "monitoring disabled")

	svc, err := kube.CoreV1().Services(ns).Get(t.Context(), "shop-metrics", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("metrics Service: %v", err)
	}
	checkMetricsService(t, svc, "shop")
	if !ownership.IsControlledBy(svc, pc.UID) {
		t.Errorf("Service not controlled by the PostgresCluster: %+v", svc.OwnerReferences)
	}

	t.Run("a Service of the name setpoint did not create is refused", func(t *testing.T) {
		foreign := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "theirs-metrics", Namespace: ns},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "web", Port: 80}}},
		}
		foreign, err := kube.CoreV1().Services(ns).Create(t.Context(), foreign, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		newCluster(t, ns, "theirs", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
		c := waitReason(t, ns, "theirs", pgv1.ReasonMetricsServiceConflict, 120*time.Second)
		testkit.ExpectReason(t, c.Status.Conditions, pgv1.ConditionMetricsServiceReady, pgv1.ReasonMetricsServiceConflict, `Service "theirs-metrics"`)
		if c.Status.Phase != pgv1.PhaseFailed {
			t.Errorf("phase %s with a conflict, want Failed", c.Status.Phase)
		}
		after, err := kube.CoreV1().Services(ns).Get(t.Context(), "theirs-metrics", metav1.GetOptions{})
		if err != nil || after.ResourceVersion != foreign.ResourceVersion {
			t.Errorf("the foreign Service was written: %v, resourceVersion %s → %s", err, foreign.ResourceVersion, after.ResourceVersion)
		}
	})

	t.Run("Retain keeps the Service for the next cluster of the name", func(t *testing.T) {
		newCluster(t, ns, "kept", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyRetain)
		kit.WaitCluster(t, ns, "kept", pgv1.PhaseReady, 120*time.Second)
		kit.DeleteCluster(t, ns, "kept")
		kit.SettleGC(t, ns) // what the garbage collector would remove is gone by now
		svc, err := kube.CoreV1().Services(ns).Get(t.Context(), "kept-metrics", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("Retain deleted the metrics Service: %v", err)
		}
		if len(svc.OwnerReferences) != 0 || svc.Labels[ownership.RetainedLabel] != "true" {
			t.Errorf("kept Service: owners %v, labels %v; want released and marked retained", svc.OwnerReferences, svc.Labels)
		}
		again := newCluster(t, ns, "kept", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
		kit.WaitCluster(t, ns, "kept", pgv1.PhaseReady, 120*time.Second)
		svc, err = kube.CoreV1().Services(ns).Get(t.Context(), "kept-metrics", metav1.GetOptions{})
		if err != nil || !ownership.IsControlledBy(svc, again.UID) {
			t.Fatalf("the new cluster did not adopt the metrics Service: %v %+v", err, svc)
		}
	})

	t.Run("monitoring.service off removes the Service", func(t *testing.T) {
		kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) {
			c.Spec.Monitoring = &pgv1.MonitoringSpec{Service: ptr.To(false)}
		})
		kit.Gone(t, "metrics Service", func(ctx context.Context) error {
			_, err := kube.CoreV1().Services(ns).Get(ctx, "shop-metrics", metav1.GetOptions{})
			return err
		})
		c := waitReason(t, ns, "shop", pgv1.ReasonAllComponentsReady, 60*time.Second)
		testkit.ExpectReason(t, c.Status.Conditions, pgv1.ConditionMetricsServiceReady, pgv1.ReasonNotConfigured, "monitoring.service is off")
	})
}

// checkMetricsService holds a metrics Service to what Prometheus's
// annotation-based discovery and CNPG's instance pods need.
func checkMetricsService(t *testing.T, svc *corev1.Service, cluster string) {
	t.Helper()
	s := svc.Spec
	if s.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("clusterIP = %q, want a headless Service", s.ClusterIP)
	}
	if len(s.Selector) != 2 || s.Selector["cnpg.io/cluster"] != cluster || s.Selector["cnpg.io/podRole"] != "instance" {
		t.Errorf("selector = %v, want cnpg.io/cluster=%s, cnpg.io/podRole=instance", s.Selector, cluster)
	}
	if len(s.Ports) != 1 || s.Ports[0].Port != 9187 || s.Ports[0].TargetPort != intstr.FromString("metrics") {
		t.Errorf("ports = %+v, want 9187 to the pods' port metrics", s.Ports)
	}
	a := svc.Annotations
	if a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != "9187" || a["prometheus.io/path"] != "/metrics" {
		t.Errorf("annotations = %v, want prometheus.io/scrape, port and path", a)
	}
}
