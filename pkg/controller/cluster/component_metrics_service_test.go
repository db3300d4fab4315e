package cluster

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefakecs "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
)

func metricsServicePass(cs *kubefakecs.Clientset, on bool, existing *corev1.Service) *pass {
	p := testPass()
	p.want = &desired{Settings: pgv1.ClusterSettings{Monitoring: &pgv1.MonitoringSpec{Service: ptr.To(on)}}}
	p.obs = &observation{}
	metricsServicePart.set(p.obs, existing)
	p.deps = &deps{kube: cs, recorder: discard{}}
	return p
}

func runMetricsService(t *testing.T, p *pass) health {
	t.Helper()
	c := metricsServiceComponent{}
	return c.Observe(t.Context(), p, c.Reconcile(t.Context(), p))
}

// On: a headless Service over the instances' metrics port, annotated for
// Prometheus, owned and labelled; a second pass that finds it as applied
// writes nothing; drift in a field we set is repaired.
func TestMetricsServiceAppliedOnce(t *testing.T) {
	t.Parallel()
	cs := kubefake()
	h := runMetricsService(t, metricsServicePass(cs, true, nil))
	if h.Phase != pgv1.PhaseReady || h.Reason != pgv1.ReasonMetricsServiceApplied || !strings.Contains(h.Message, `"shop-metrics"`) {
		t.Fatalf("health = %+v", h)
	}
	svc, err := cs.CoreV1().Services("ns").Get(t.Context(), "shop-metrics", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Service not applied: %v", err)
	}
	if d := ct.Diff(wantMetricsService(), svc); d != "" {
		t.Errorf("Service as stored: %s", d)
	}
	cs.ClearActions()
	if h := runMetricsService(t, metricsServicePass(cs, true, svc)); h.Phase != pgv1.PhaseReady {
		t.Fatalf("converged pass: %+v", h)
	}
	if n := len(cs.Actions()); n != 0 {
		t.Fatalf("converged pass sent %d requests: %v", n, cs.Actions())
	}

	drifted := svc.DeepCopy()
	drifted.Annotations["prometheus.io/scrape"] = "false"
	runMetricsService(t, metricsServicePass(cs, true, drifted))
	svc, _ = cs.CoreV1().Services("ns").Get(t.Context(), "shop-metrics", metav1.GetOptions{})
	if d := ct.Diff(wantMetricsService(), svc); d != "" {
		t.Errorf("drift not repaired: %s", d)
	}
}

// A Service of the name that setpoint did not create — out of the
// label-selected cache, so found by asking — is never written or deleted.
func TestMetricsServiceConflictLeavesForeignUntouched(t *testing.T) {
	t.Parallel()
	foreign := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "shop-metrics", Namespace: "ns"}}
	cs := kubefake(foreign)
	h := runMetricsService(t, metricsServicePass(cs, true, nil))
	if h.Phase != pgv1.PhaseFailed || h.Reason != pgv1.ReasonMetricsServiceConflict || !strings.Contains(h.Message, `Service "shop-metrics"`) {
		t.Fatalf("health = %+v", h)
	}
	for _, a := range cs.Actions() {
		if a.GetVerb() != "get" {
			t.Errorf("wrote a foreign Service: %v", a)
		}
	}
	cs.ClearActions()
	if h := runMetricsService(t, metricsServicePass(cs, false, foreign)); h.Reason != pgv1.ReasonNotConfigured {
		t.Fatalf("off: %+v", h)
	}
	if n := len(cs.Actions()); n != 0 {
		t.Fatalf("off touched a foreign Service: %v", cs.Actions())
	}
}

// Off removes our Service.
func TestMetricsServiceDeletedWhenOff(t *testing.T) {
	t.Parallel()
	cs := kubefake()
	runMetricsService(t, metricsServicePass(cs, true, nil))
	svc, err := cs.CoreV1().Services("ns").Get(t.Context(), "shop-metrics", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := runMetricsService(t, metricsServicePass(cs, false, svc)); h.Phase != pgv1.PhaseReady || h.Reason != pgv1.ReasonNotConfigured {
		t.Fatalf("health = %+v", h)
	}
	if _, err := cs.CoreV1().Services("ns").Get(t.Context(), "shop-metrics", metav1.GetOptions{}); err == nil {
		t.Fatal("Service still there with monitoring.service off")
	}
}
