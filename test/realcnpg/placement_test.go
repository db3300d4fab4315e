package realcnpg

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// TestPlacementOnRealCNPG: a class's placement reaches the instance Pod
// that real CloudNativePG makes: required anti-affinity on the node's
// hostname, the node selector, the toleration and the priority class; the
// instance runs (the node has the label and no taint), and the cluster is
// Ready.
func TestPlacementOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	pcName := "setpoint-" + ns
	if _, err := kube.SchedulingV1().PriorityClasses().Create(t.Context(), &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: pcName}, Value: 1000}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.SchedulingV1().PriorityClasses().Delete(context.WithoutCancel(t.Context()), pcName, metav1.DeleteOptions{})
	})
	dedicated := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}
	smallClass(t, "placed-"+ns, func(s *pgv1.ClusterSettings) {
		s.Placement = &pgv1.PlacementSpec{AntiAffinity: pgv1.AntiAffinityRequired, TopologyKey: "kubernetes.io/hostname",
			NodeSelector: map[string]string{"kubernetes.io/os": "linux"}, Tolerations: []corev1.Toleration{dedicated},
			PriorityClassName: pcName}
	})
	createCluster(t, ns, "shop", "placed-"+ns)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)

	pod, err := kube.CoreV1().Pods(ns).Get(t.Context(), "shop-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := pod.Spec
	if s.PriorityClassName != pcName || s.Priority == nil || *s.Priority != 1000 {
		t.Errorf("instance Pod priority class %q (%v), want %s at 1000", s.PriorityClassName, s.Priority, pcName)
	}
	if s.NodeSelector["kubernetes.io/os"] != "linux" {
		t.Errorf("instance Pod node selector %v", s.NodeSelector)
	}
	tolerated := false
	for _, tol := range s.Tolerations {
		tolerated = tolerated || (tol.Key == "dedicated" && tol.Value == "db" && tol.Effect == corev1.TaintEffectNoSchedule)
	}
	if !tolerated {
		t.Errorf("instance Pod tolerations %v lack dedicated=db:NoSchedule", s.Tolerations)
	}
	a := s.Affinity
	if a == nil || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) == 0 ||
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != "kubernetes.io/hostname" {
		t.Errorf("instance Pod affinity %+v, want a required anti-affinity on kubernetes.io/hostname", a)
	}
}
