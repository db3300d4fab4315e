package realcnpg

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// TestPlacementOnRealCNPG: a class's placement reaches the instance Pod
// that real CloudNativePG makes: required anti-affinity on the node's
// hostname, the node selector, the toleration and the priority class; the
// instance runs (the node has the label and no taint), and the cluster is
// Ready. The poolers' placement reaches the PgBouncer Pods CloudNativePG
// makes from the Pooler's template: their own required anti-affinity,
// the toleration and the priority class, and they run.
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
		s.ConnectionPooler = &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(true), Instances: ptr.To[int32](1),
			Placement: &pgv1.PlacementSpec{AntiAffinity: pgv1.AntiAffinityRequired, Tolerations: []corev1.Toleration{dedicated},
				PriorityClassName: pcName}}
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

	bouncers, err := kube.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "cnpg.io/poolerName=shop-pooler-rw"})
	if err != nil {
		t.Fatal(err)
	}
	if len(bouncers.Items) != 1 {
		t.Fatalf("%d PgBouncer Pods of shop-pooler-rw, want 1", len(bouncers.Items))
	}
	b := bouncers.Items[0]
	if b.Status.Phase != corev1.PodRunning || b.Spec.PriorityClassName != pcName {
		t.Errorf("PgBouncer Pod %s: %s, priority class %q, want Running with %s", b.Name, b.Status.Phase, b.Spec.PriorityClassName, pcName)
	}
	if !slices.ContainsFunc(b.Spec.Tolerations, func(tol corev1.Toleration) bool { return tol.Key == "dedicated" && tol.Value == "db" }) {
		t.Errorf("PgBouncer Pod tolerations %v lack dedicated=db", b.Spec.Tolerations)
	}
	ba := b.Spec.Affinity
	if ba == nil || ba.PodAntiAffinity == nil || len(ba.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 ||
		ba.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector.MatchLabels["cnpg.io/poolerName"] != "shop-pooler-rw" {
		t.Errorf("PgBouncer Pod affinity %+v, want its pooler's Pods apart", ba)
	}
}

// TestAntiAffinityOnTheOneNodeOnRealCNPG: on the one node, three
// instances with Required anti-affinity cannot all run: the first does,
// the next waits in CloudNativePG's replica creation, and setpoint names
// the Pod the scheduler cannot place with the scheduler's reason
// (PodsUnschedulable). With Preferred, all three run on the one node and
// the cluster is Ready.
func TestAntiAffinityOnTheOneNodeOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	three := func(aa pgv1.AntiAffinity) func(*pgv1.ClusterSettings) {
		return func(s *pgv1.ClusterSettings) {
			s.Instances = ptr.To[int32](3)
			s.Placement = &pgv1.PlacementSpec{AntiAffinity: aa}
		}
	}
	smallClass(t, "strict-"+ns, three(pgv1.AntiAffinityRequired))
	smallClass(t, "spread-"+ns, three(pgv1.AntiAffinityPreferred))
	createCluster(t, ns, "strict", "strict-"+ns)
	createCluster(t, ns, "spread", "spread-"+ns)

	kit.WaitClusterReason(t, ns, "strict", pgv1.ConditionProvisionerReady, pgv1.ReasonPodsUnschedulable, 8*time.Minute)
	// The primary runs, the replica never can: setpoint keeps naming it.
	var said string
	kit.Eventually(t, 4*time.Minute, "strict: its primary ready, its replica unschedulable", func(ctx context.Context) (bool, string, error) {
		pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "strict", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionProvisionerReady)
		if c == nil {
			return false, "no ProvisionerReady", nil
		}
		said = c.Message
		return c.Reason == pgv1.ReasonPodsUnschedulable && pc.Status.ReadyInstances == 1 && pc.Status.Phase != pgv1.PhaseReady,
			fmt.Sprintf("%s %s: %s; %d ready", pc.Status.Phase, c.Reason, c.Message, pc.Status.ReadyInstances), nil
	})
	t.Logf("strict: %s", said)
	if !strings.Contains(said, "cannot be scheduled") || !strings.Contains(said, "anti-affinity") {
		t.Errorf("ProvisionerReady says %q, want the scheduler's anti-affinity reason", said)
	}

	spread := kit.WaitCluster(t, ns, "spread", pgv1.PhaseReady, 10*time.Minute)
	if spread.Status.ReadyInstances != 3 {
		t.Errorf("spread: %d ready instances, want 3 on the one node", spread.Status.ReadyInstances)
	}
	instances, err := kube.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "cnpg.io/cluster=spread,cnpg.io/podRole=instance"})
	if err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, p := range instances.Items {
		if p.Status.Phase == corev1.PodRunning {
			running++
		}
	}
	if running != 3 {
		t.Errorf("spread: %d instance Pods Running, want 3", running)
	}
}
