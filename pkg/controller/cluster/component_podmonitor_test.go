package cluster

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	monitoringv1 "github.com/setpoint-dev/setpoint/pkg/apis/monitoring/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	pgfake "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

func podMonitorPass(cs *pgfake.Clientset, on bool, existing *monitoringv1.PodMonitor) *pass {
	p := testPass()
	p.want = &desired{MonitoringOn: on}
	p.obs = &observation{}
	podMonitorPart.set(p.obs, podMonitorSeen{cur: existing})
	p.deps = &deps{pg: cs, recorder: discard{}}
	return p
}

// reconcileObserve runs the component once, as the pipeline does.
func reconcileObserve(t *testing.T, p *pass) health {
	t.Helper()
	c := podMonitorComponent{}
	return c.Observe(t.Context(), p, c.Reconcile(t.Context(), p))
}

// Monitoring on: the PodMonitor CNPG recommends — the cluster's instance
// pods, scraped on their metrics port — owned by the cluster; a second
// pass that finds it as applied writes nothing.
func TestPodMonitorAppliedOnceWithCNPGsSelector(t *testing.T) {
	t.Parallel()
	cs := pgfake.NewClientset()
	p := podMonitorPass(cs, true, nil)
	h := reconcileObserve(t, p)
	if h.Phase != pgv1.PhaseReady || h.Reason != "PodMonitorApplied" || !strings.Contains(h.Message, `"shop-metrics"`) {
		t.Fatalf("health = %+v", h)
	}
	pm, err := cs.MonitoringV1().PodMonitors("ns").Get(t.Context(), "shop-metrics", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("PodMonitor not applied: %v", err)
	}
	if d := ct.Diff(wantPodMonitor(), pm); d != "" {
		t.Errorf("PodMonitor as stored: %s", d)
	}
	cs.ClearActions()
	p = podMonitorPass(cs, true, pm)
	if h := reconcileObserve(t, p); h.Phase != pgv1.PhaseReady {
		t.Fatalf("converged pass: %+v", h)
	}
	if n := len(cs.Actions()); n != 0 {
		t.Fatalf("converged pass sent %d requests: %v", n, cs.Actions())
	}

	// A changed selector is ours to repair.
	drifted := pm.DeepCopy()
	drifted.Spec.Selector.MatchLabels = map[string]string{"cnpg.io/cluster": "other"}
	p = podMonitorPass(cs, true, drifted)
	reconcileObserve(t, p)
	pm, _ = cs.MonitoringV1().PodMonitors("ns").Get(t.Context(), "shop-metrics", metav1.GetOptions{})
	if d := ct.Diff(wantPodMonitor(), pm); d != "" {
		t.Errorf("drift not repaired: %s", d)
	}
}

// A PodMonitor of that name that setpoint did not create is never
// written: the condition says PodMonitorConflict.
func TestPodMonitorConflictLeavesForeignUntouched(t *testing.T) {
	t.Parallel()
	foreign := &monitoringv1.PodMonitor{ObjectMeta: metav1.ObjectMeta{Name: "shop-metrics", Namespace: "ns"},
		Spec: monitoringv1.PodMonitorSpec{PodMetricsEndpoints: []monitoringv1.PodMetricsEndpoint{{Port: ptr.To("web")}}}}
	cs := pgfake.NewClientset(foreign)
	p := podMonitorPass(cs, true, foreign)
	cs.ClearActions()
	h := reconcileObserve(t, p)
	if h.Phase != pgv1.PhaseFailed || h.Reason != "PodMonitorConflict" || !strings.Contains(h.Message, `PodMonitor "shop-metrics" exists`) {
		t.Fatalf("health = %+v", h)
	}
	if n := len(cs.Actions()); n != 0 {
		t.Fatalf("sent %d requests to a foreign PodMonitor: %v", n, cs.Actions())
	}

	// Monitoring off: still not ours to delete.
	p = podMonitorPass(cs, false, foreign)
	if h := reconcileObserve(t, p); h.Phase != pgv1.PhaseReady || h.Reason != "NotConfigured" {
		t.Fatalf("health = %+v", h)
	}
	if n := len(cs.Actions()); n != 0 {
		t.Fatalf("deleted or wrote a foreign PodMonitor: %v", cs.Actions())
	}
}

// Monitoring turned off removes our PodMonitor.
func TestPodMonitorDeletedWhenMonitoringOff(t *testing.T) {
	t.Parallel()
	cs := pgfake.NewClientset()
	p := podMonitorPass(cs, true, nil)
	reconcileObserve(t, p)
	pm, err := cs.MonitoringV1().PodMonitors("ns").Get(t.Context(), "shop-metrics", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p = podMonitorPass(cs, false, pm)
	if h := reconcileObserve(t, p); h.Phase != pgv1.PhaseReady || h.Reason != "NotConfigured" {
		t.Fatalf("health = %+v", h)
	}
	if _, err := cs.MonitoringV1().PodMonitors("ns").Get(t.Context(), "shop-metrics", metav1.GetOptions{}); err == nil {
		t.Fatal("PodMonitor still there with monitoring off")
	}
}

// Without the Prometheus Operator's CRD nothing is written and the
// cluster says why; without monitoring the missing CRD does not matter.
func TestPodMonitorCRDMissing(t *testing.T) {
	t.Parallel()
	cs := pgfake.NewClientset()
	p := podMonitorPass(cs, true, nil)
	podMonitorPart.set(p.obs, podMonitorSeen{crdMissing: true})
	h := reconcileObserve(t, p)
	if h.Phase != pgv1.PhasePending || h.Reason != "MonitoringUnavailable" ||
		h.Message != "the Prometheus Operator is not installed (CRD podmonitors.monitoring.coreos.com missing)" || h.RequeueAfter != 0 {
		t.Fatalf("health = %+v", h)
	}
	if n := len(cs.Actions()); n != 0 {
		t.Fatalf("sent %d requests without the CRD", n)
	}
	p = podMonitorPass(cs, false, nil)
	podMonitorPart.set(p.obs, podMonitorSeen{crdMissing: true})
	if h := reconcileObserve(t, p); h.Phase != pgv1.PhaseReady {
		t.Fatalf("monitoring off without the CRD: %+v", h)
	}
}

// setpoint no longer asks CNPG for its deprecated PodMonitor, and a CNPG
// Cluster where an earlier setpoint did is re-applied without it.
func TestProvisionerDropsDeprecatedEnablePodMonitor(t *testing.T) {
	t.Parallel()
	cs := pgfake.NewClientset()
	c := provisionerComponent{}
	s := pgv1.ClusterSettings{Monitoring: &pgv1.MonitoringSpec{Enabled: ptr.To(true)}}
	p := provisionerPass(t, cs, s)
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	applied := p.appliedCNPG()
	if applied.Spec.Monitoring != nil {
		t.Fatalf("monitoring section applied: %+v", applied.Spec.Monitoring)
	}
	n := len(cs.Actions())
	old := applied.DeepCopy()
	old.Spec.Monitoring = &cnpgv1.MonitoringConfiguration{EnablePodMonitor: ptr.To(true)}
	p = provisionerPass(t, cs, s)
	p.obs.cnpg = old
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if len(cs.Actions()) != n+1 {
		t.Fatalf("a Cluster with enablePodMonitor was not re-applied: %d requests", len(cs.Actions())-n)
	}
}
