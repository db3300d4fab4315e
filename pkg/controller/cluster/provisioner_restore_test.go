package cluster

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// recoveringCNPG is the CNPG Cluster of a restore, controlled by p's
// cluster, in phase, bootstrapped (an instance ran: currentPrimary set) as
// given. Initialized is True either way, as real CNPG 1.30 has it once the
// instance's PVC exists, the failed recovery Job's included.
func recoveringCNPG(p *pass, phase, reason string, bootstrapped bool) *cnpgv1.Cluster {
	cl := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: p.cluster.Name, Namespace: p.cluster.Namespace, UID: "cnpg-uid",
		OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)}},
		Spec:   cnpgv1.ClusterSpec{Bootstrap: &cnpgv1.BootstrapConfiguration{Recovery: &cnpgv1.BootstrapRecovery{Source: restoreSourceName}}},
		Status: cnpgv1.ClusterStatus{Phase: phase, PhaseReason: reason, Instances: 1}}
	if bootstrapped {
		cl.Status.CurrentPrimary = cl.Name + "-1"
	}
	cl.Status.Conditions = []metav1.Condition{{Type: "Initialized", Status: metav1.ConditionTrue, Reason: "BootstrapCompleted"}}
	return cl
}

// status.restoredFrom appears only once an instance of the CNPG Cluster we
// control ran (currentPrimary), after the recovery bootstrap; a
// restore that is asked for, still running or failed restored nothing.
func TestRestoredFromOnlyAfterTheRecovery(t *testing.T) {
	t.Parallel()
	p := testPass()
	p.obs = &observation{}
	target := metav1.Unix(1_800_000_000, 0)
	r := &pgv1.RestoreSpec{Source: "old", TargetTime: &target}
	if got := restoredFrom(p, r, "shop-backup"); got != nil {
		t.Fatalf("no CNPG Cluster yet: restoredFrom = %+v", got)
	}
	p.obs.cnpg = recoveringCNPG(p, "Setting up primary", "", false)
	if got := restoredFrom(p, r, "shop-backup"); got != nil {
		t.Fatalf("recovery running: restoredFrom = %+v", got)
	}
	p.obs.cnpg = recoveringCNPG(p, phaseUnrecoverable, "Instance creation failed", false)
	if got := restoredFrom(p, r, "shop-backup"); got != nil {
		t.Fatalf("recovery failed: restoredFrom = %+v", got)
	}
	p.obs.cnpg = recoveringCNPG(p, "Cluster in healthy state", "", true)
	got := restoredFrom(p, r, "shop-backup")
	if got == nil || got.Source != "old" || got.ObjectStore != "shop-backup" || !got.TargetTime.Equal(&target) {
		t.Fatalf("recovered: restoredFrom = %+v", got)
	}
	// currentPrimary stays set: a restored cluster failing later still
	// restored.
	p.obs.cnpg = recoveringCNPG(p, phaseUnrecoverable, "", true)
	if restoredFrom(p, r, "shop-backup") == nil {
		t.Fatal("restoredFrom lost when the restored cluster failed later")
	}
	foreign := recoveringCNPG(p, "Cluster in healthy state", "", true)
	foreign.OwnerReferences = nil
	p.obs.cnpg = foreign
	if got := restoredFrom(p, r, "shop-backup"); got != nil {
		t.Fatalf("foreign CNPG Cluster: restoredFrom = %+v", got)
	}
	initdb := recoveringCNPG(p, "Cluster in healthy state", "", true)
	initdb.Spec.Bootstrap = nil
	p.obs.cnpg = initdb
	if got := restoredFrom(p, r, "shop-backup"); got != nil {
		t.Fatalf("CNPG Cluster not bootstrapped by recovery: restoredFrom = %+v", got)
	}
}

func settledPass(t *testing.T, restore *pgv1.RestoreSpec) (*pass, *clocktesting.FakeClock) {
	t.Helper()
	p := provisionerPass(t, fake.NewClientset(), pgv1.ClusterSettings{})
	p.cluster.Spec.Restore = restore
	s, clock := testSettler()
	p.deps.clock, p.deps.settle = clock, s
	return p, clock
}

// A restore CNPG cannot carry out is Failed with RestoreFailed and CNPG's
// own phase and reason; a cluster that did restore and fails later is
// CNPGFailed like any other.
func TestRestoreFailureIsRestoreFailed(t *testing.T) {
	t.Parallel()
	p, _ := settledPass(t, &pgv1.RestoreSpec{Source: "ghost"})
	const jobReason = "Instance creation failed for the following jobs: shop-1-full-recovery. Check the job logs to investigate the cause of the failure."
	p.provisioner.cnpg = recoveringCNPG(p, phaseUnrecoverable, jobReason, false)
	h := settledProvisioner{}.Observe(t.Context(), p, nil)
	if h.Phase != pgv1.PhaseFailed || h.Reason != pgv1.ReasonRestoreFailed ||
		!strings.Contains(h.Message, `restore of "ghost" from ObjectStore "shop-backup" failed`) ||
		!strings.Contains(h.Message, phaseUnrecoverable) || !strings.Contains(h.Message, jobReason) {
		t.Fatalf("health = %+v", h)
	}

	p, _ = settledPass(t, &pgv1.RestoreSpec{Source: "old"})
	p.provisioner.cnpg = recoveringCNPG(p, phaseUnrecoverable, "No pods are active", true)
	if h := (settledProvisioner{}).Observe(t.Context(), p, nil); h.Reason != "CNPGFailed" {
		t.Fatalf("a restored cluster failing later: %+v", h)
	}
	p, _ = settledPass(t, nil)
	p.provisioner.cnpg = recoveringCNPG(p, phaseUnrecoverable, "No pods are active", false)
	if h := (settledProvisioner{}).Observe(t.Context(), p, nil); h.Reason != "CNPGFailed" {
		t.Fatalf("no restore: %+v", h)
	}
}

// Passes over a CNPG status that flaps report one status per settle: the
// health a pass concludes (what its status write carries) changes once
// per phaseMaxHold while the flap lasts, and the pass asks to look again
// when the held status would settle.
func TestSettledProvisionerCoalescesAFlap(t *testing.T) {
	t.Parallel()
	p, clock := settledPass(t, &pgv1.RestoreSpec{Source: "ghost"})
	const jobReason = "Instance creation failed for the following jobs: shop-1-full-recovery."
	observe := func(phase, reason string) health {
		p.provisioner.cnpg = recoveringCNPG(p, phase, reason, false)
		p.status = &pgv1.PostgresClusterStatus{}
		return settledProvisioner{}.Observe(t.Context(), p, nil)
	}
	first := observe(phaseUnrecoverable, jobReason)
	if first.Reason != pgv1.ReasonRestoreFailed {
		t.Fatalf("first pass: %+v", first)
	}
	last, changes := first, 0
	for i := range 600 { // a minute of the old stand-in's flap
		clock.Step(100 * time.Millisecond)
		h := observe([]string{"Failing over", phaseUnrecoverable}[i%2], []string{"", jobReason}[i%2])
		if h.Reason != last.Reason || h.Message != last.Message || h.Phase != last.Phase {
			changes++
		}
		held := i%2 == 0 && h.Phase == pgv1.PhaseFailed // CNPG is failing over
		if held && (h.RequeueAfter <= 0 || h.RequeueAfter > phaseSettle) {
			t.Fatalf("a held status asks for recheck %v, want (0, %v]", h.RequeueAfter, phaseSettle)
		}
		last = h
	}
	if max := int(time.Minute/phaseMaxHold) * 2; changes > max {
		t.Fatalf("%d reported changes in a minute of flapping, want at most %d", changes, max)
	}
	clock.Step(100 * time.Millisecond)
	observe(phaseUnrecoverable, jobReason)
	clock.Step(phaseSettle)
	if h := observe(phaseUnrecoverable, jobReason); h.Reason != pgv1.ReasonRestoreFailed || h.Phase != pgv1.PhaseFailed {
		t.Fatalf("after the flap settled: %+v", h)
	}
}
