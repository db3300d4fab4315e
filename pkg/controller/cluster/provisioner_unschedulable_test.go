package cluster

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// schedulerSays is the scheduler's message for a replica that required
// anti-affinity keeps off the only node.
const schedulerSays = "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."

func pendingPod(name string, scheduled corev1.PodCondition) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{cnpgClusterLabel: "shop", "cnpg.io/podRole": "instance"}},
		Status:     corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{scheduled}},
	}
}

// CNPG waits for a replica the scheduler cannot place: ProvisionerReady
// quotes the scheduler, and the Pod placed, CNPG's own words return.
func TestUnschedulableInstanceIsNamedInStatus(t *testing.T) {
	t.Parallel()
	cl, pc := class(), cluster(pgv1.ClusterSettings{})
	cl.ResourceVersion, pc.ResourceVersion = "1", "1"
	stuck := pendingPod("shop-2", corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, Message: schedulerSays})
	// A Pod that waits only for its volume to bind is not stuck.
	binding := pendingPod("shop-3", corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulerError"})
	f := newFixture(t, []runtime.Object{stuck, binding}, []runtime.Object{cl, pc})
	firstPass(t, f)
	f.setCNPGPhase("Creating a new replica")
	firstPass(t, f)
	f.clock.Step(phaseSettle)
	firstPass(t, f)
	c := meta.FindStatusCondition(f.cluster("shop").Status.Conditions, pgv1.ConditionProvisionerReady)
	if c == nil || c.Reason != pgv1.ReasonPodsUnschedulable || !strings.Contains(c.Message, "Pod shop-2 cannot be scheduled: "+schedulerSays) ||
		strings.Contains(c.Message, "shop-3") || !strings.Contains(c.Message, `CNPG: "Creating a new replica"`) {
		t.Fatalf("ProvisionerReady %+v, want PodsUnschedulable quoting the scheduler for shop-2 alone", c)
	}
	if got := f.cluster("shop").Status.Phase; got != pgv1.PhaseProvisioning {
		t.Errorf("phase %s, want CNPG's Provisioning", got)
	}

	stuck.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}}
	if _, err := f.kube.CoreV1().Pods("ns").UpdateStatus(t.Context(), stuck, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	firstPass(t, f)
	if c := meta.FindStatusCondition(f.cluster("shop").Status.Conditions, pgv1.ConditionProvisionerReady); c == nil || c.Reason != pgv1.ReasonCNPGProvisioning {
		t.Errorf("ProvisionerReady %+v once shop-2 is placed, want CNPG's reason back", c)
	}
}

func TestSchedulingChangedWakesOnlyOnItsEdge(t *testing.T) {
	t.Parallel()
	unsched := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: "a"}
	a, b := pendingPod("shop-2", unsched), pendingPod("shop-2", unsched)
	b.ResourceVersion = "2"
	if schedulingChanged(a, b) {
		t.Error("an update that keeps the Pod unschedulable for the same reason wakes the cluster")
	}
	b.Status.Conditions[0].Message = "b"
	if !schedulingChanged(a, b) {
		t.Error("a new reason from the scheduler does not wake the cluster")
	}
	placed := pendingPod("shop-2", corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
	if !schedulingChanged(a, placed) {
		t.Error("a Pod placed at last does not wake the cluster")
	}
}
