package cluster

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

func autoGrowSettings() pgv1.ClusterSettings {
	return pgv1.ClusterSettings{Storage: &pgv1.StorageSpec{
		Size:     ptr.To(q("64Mi")),
		AutoGrow: &pgv1.AutoGrowSpec{Enabled: ptr.To(true), Limit: ptr.To(q("96Mi"))},
	}}
}

// A grow reaches the CNPG Cluster, never the PostgresCluster's spec, and
// status records it.
func TestGrowIsAppliedToCNPGNotToTheSpec(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	p := provisionerPass(t, cs, autoGrowSettings())
	d := p.planStorage(used(56)) // 87.5 % of 64Mi
	if !d.grew {
		t.Fatal("no grow over the threshold")
	}
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	// The grown size and the mark the next operator reads it back from,
	// in the one apply of the pass.
	applies := ct.Writes(cs.Actions())
	if len(applies) != 1 {
		t.Fatalf("the pass wrote %v, want one apply", applies)
	}
	if d := ct.Sends(grownClusterApply())(applies[0]); d != "" {
		t.Errorf("apply of the grown CNPG Cluster: %s", d)
	}
	if got := p.cluster.Spec.Storage.Size.String(); got != "64Mi" {
		t.Errorf("the spec was changed to %s", got)
	}
	st := p.status.Storage
	if st == nil || st.Size.String() != "77Mi" || st.LastGrowFrom.String() != "64Mi" || !st.GrowInFlight || !st.LastGrowTime.Time.Equal(t0) {
		t.Errorf("status.storage = %+v", st)
	}
	if c := meta.FindStatusCondition(p.status.Conditions, pgv1.ConditionStorageAtLimit); c == nil || c.Status != "False" {
		t.Errorf("StorageAtLimit = %+v", c)
	}
}

// The next operator (a new process: nothing in memory, and a status that
// says nothing) neither grows again in the window nor forgets the grown
// size: both come from the mark on the CNPG Cluster. At the limit it stops.
func TestGrowSurvivesRestartAndStopsAtLimit(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakePassiveClock(t0)
	cs := fake.NewClientset()
	p, _ := growPass(t, cs, clk, pgv1.PostgresClusterStatus{}, nil, used(10))
	p, d := growPass(t, cs, clk, pgv1.PostgresClusterStatus{}, p.appliedCNPG(), used(56))
	if !d.grew || p.appliedCNPG().Spec.Storage.Size != "77Mi" {
		t.Fatalf("first grow: %v, CNPG %s", d.grew, p.appliedCNPG().Spec.Storage.Size)
	}

	clk.SetTime(t0.Add(5 * time.Minute))
	p, d = growPass(t, cs, clk, pgv1.PostgresClusterStatus{}, p.appliedCNPG(), used(70))
	if d.grew || d.recheck != 5*time.Minute || p.want.StorageSize.String() != "77Mi" {
		t.Fatalf("inside the window: grew %v, recheck %s, size %s", d.grew, d.recheck, p.want.StorageSize.String())
	}
	if st := p.status.Storage; !st.LastGrowTime.Time.Equal(t0) || !st.GrowInFlight || st.LastGrowFrom.String() != "64Mi" {
		t.Errorf("reported inside the window: %+v", st)
	}

	clk.SetTime(t0.Add(11 * time.Minute))
	if p, d = growPass(t, cs, clk, pgv1.PostgresClusterStatus{}, p.appliedCNPG(), used(70)); !d.grew || p.appliedCNPG().Spec.Storage.Size != "93Mi" {
		t.Fatalf("after the window: grew %v to %s", d.grew, p.appliedCNPG().Spec.Storage.Size)
	}
	clk.SetTime(t0.Add(30 * time.Minute))
	if p, d = growPass(t, cs, clk, pgv1.PostgresClusterStatus{}, p.appliedCNPG(), used(90)); !d.grew || p.appliedCNPG().Spec.Storage.Size != "96Mi" {
		t.Fatalf("capped: grew %v to %s", d.grew, p.appliedCNPG().Spec.Storage.Size)
	}
	clk.SetTime(t0.Add(50 * time.Minute))
	if p, d = growPass(t, cs, clk, pgv1.PostgresClusterStatus{}, p.appliedCNPG(), used(95)); d.grew || p.appliedCNPG().Spec.Storage.Size != "96Mi" {
		t.Fatal("grew past the limit")
	}
	if c := meta.FindStatusCondition(p.status.Conditions, pgv1.ConditionStorageAtLimit); c == nil || c.Status != "True" || c.Reason != "AtLimit" {
		t.Errorf("StorageAtLimit = %+v", c)
	}
}

func TestAutoGrowOffRemovesTheCondition(t *testing.T) {
	t.Parallel()
	p := provisionerPass(t, fake.NewClientset(), autoGrowSettings())
	p.planStorage(used(10))
	if meta.FindStatusCondition(p.status.Conditions, pgv1.ConditionStorageAtLimit) == nil {
		t.Fatal("no condition with auto-grow on")
	}
	p.want.AutoGrow = nil
	p.planStorage(used(10))
	if meta.FindStatusCondition(p.status.Conditions, pgv1.ConditionStorageAtLimit) != nil {
		t.Error("condition kept with auto-grow off")
	}
}

// StorageGrown on each grow; StorageAtLimit only when the condition turns
// True, not at every pass that finds it True.
func TestStorageEventsOnEdges(t *testing.T) {
	t.Parallel()
	rec := record.NewFakeRecorder(10)
	c := &Controller{deps: &deps{recorder: rec}}
	pc := cluster(autoGrowSettings())
	d := decideGrow(q("64Mi"), q("64Mi"), policy("20%", "96Mi"), nil, used(56), false, t0)
	st := pc.Status.DeepCopy()
	c.storageEvents(t.Context(), pc, st, d)
	if got := ct.Events(rec); len(got) != 1 || !strings.HasPrefix(got[0], "Normal StorageGrown Grew the data volumes from 64Mi to 77Mi: 56.0 MiB of 64Mi in use (87%)") {
		t.Fatalf("events = %q", got)
	}
	at := decideGrow(q("96Mi"), q("64Mi"), policy("20%", "96Mi"), &pgv1.StorageStatus{Size: ptr.To(q("96Mi"))}, used(90), false, t0)
	pipeline.SetCondition(&st.Conditions, 1, pgv1.ConditionStorageAtLimit, true, at.atLimit.reason, at.atLimit.message)
	c.storageEvents(t.Context(), pc, st, at)
	if got := ct.Events(rec); len(got) != 1 || !strings.HasPrefix(got[0], "Warning StorageAtLimit 90.0 MiB of 96Mi in use (93%); usage is over the 80% threshold") {
		t.Fatalf("events at the limit = %q", got)
	}
	pc.Status = *st
	c.storageEvents(t.Context(), pc, st.DeepCopy(), at)
	if got := ct.Events(rec); len(got) != 0 {
		t.Fatalf("events while it stays at the limit = %q", got)
	}
}
