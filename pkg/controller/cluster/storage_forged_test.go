package cluster

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// growPass runs what a sync pass runs for storage, in its order: resolve
// against the running CNPG Cluster (nil before it exists) with the
// PostgresCluster's status as stored, judge the sample, apply, settle;
// at clk's time, which the test moves between passes.
func growPass(t *testing.T, cs *fake.Clientset, clk *clocktesting.FakePassiveClock, st pgv1.PostgresClusterStatus, running *cnpgv1.Cluster, s *collector.Sample) (*pass, growDecision) {
	t.Helper()
	pc := cluster(autoGrowSettings())
	pc.Status = st
	want, err := resolveAgainst(pc, class(), running, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	p := provisionerPass(t, cs, autoGrowSettings())
	p.cluster, p.want, p.status = pc, want, st.DeepCopy()
	p.deps.clock = clk
	p.obs.cnpg = running
	d := p.planStorage(s)
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	return p, p.settleStorage(d)
}

func mt(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }

// A status anyone with status access edits is a report setpoint rewrites,
// never an input: none of these forged values changes what setpoint
// applies to the CNPG Cluster (autoGrowSettings: 64Mi, limit 96Mi, 80 %,
// cooldown 10m).
func TestForgedStorageStatusDoesNotChangeBehaviour(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		forged pgv1.StorageStatus
		sample *collector.Sample
		want   string // CNPG storage.size after the pass
	}{
		{"a lastGrowTime in the future does not suppress a grow",
			pgv1.StorageStatus{Size: ptr.To(q("64Mi")), LastGrowTime: mt(t0.Add(24 * time.Hour)), GrowInFlight: true}, used(56), "77Mi"},
		{"growInFlight does not block a grow",
			pgv1.StorageStatus{Size: ptr.To(q("64Mi")), GrowInFlight: true}, used(56), "77Mi"},
		{"a size within the limit does not grow the volume",
			pgv1.StorageStatus{Size: ptr.To(q("96Mi")), LastGrowFrom: ptr.To(q("64Mi")), LastGrowTime: mt(t0.Add(-time.Hour))}, used(10), "64Mi"},
		{"a size within the limit is not a base to grow from",
			pgv1.StorageStatus{Size: ptr.To(q("90Mi")), LastGrowTime: mt(t0.Add(-time.Hour))}, used(56), "77Mi"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(t0)
			cs := fake.NewClientset()
			first, _ := growPass(t, cs, clk, pgv1.PostgresClusterStatus{}, nil, used(10))
			st := first.status.DeepCopy()
			st.Storage = tc.forged.DeepCopy()
			p, _ := growPass(t, cs, clk, *st, first.appliedCNPG(), tc.sample)
			if got := p.appliedCNPG().Spec.Storage.Size; got != tc.want {
				t.Fatalf("CNPG storage.size = %s, want %s", got, tc.want)
			}
			if got := p.status.Storage.Size.String(); got != tc.want {
				t.Errorf("status.storage.size reported %s, want %s", got, tc.want)
			}
		})
	}
}

// After a real grow, a forged lastGrowTime neither ends the window early
// nor moves it, and a status wiped clean loses nothing: the window and
// the grown size come from the mark, and status reports them again.
func TestForgedStatusDoesNotMoveTheWindow(t *testing.T) {
	t.Parallel()
	for name, forged := range map[string]*pgv1.StorageStatus{
		"lastGrowTime long past":      {Size: ptr.To(q("77Mi")), LastGrowTime: mt(t0.Add(-time.Hour))},
		"status.storage removed":      nil,
		"growInFlight false, no time": {Size: ptr.To(q("77Mi"))},
	} {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(t0)
			cs := fake.NewClientset()
			p, _ := growPass(t, cs, clk, pgv1.PostgresClusterStatus{}, nil, used(10))
			p, _ = growPass(t, cs, clk, *p.status, p.appliedCNPG(), used(56))
			if p.appliedCNPG().Spec.Storage.Size != "77Mi" {
				t.Fatalf("first grow: %s", p.appliedCNPG().Spec.Storage.Size)
			}
			clk.SetTime(t0.Add(5 * time.Minute))
			st := p.status.DeepCopy()
			st.Storage = forged.DeepCopy()
			p, d := growPass(t, cs, clk, *st, p.appliedCNPG(), used(75))
			if d.grew || p.appliedCNPG().Spec.Storage.Size != "77Mi" {
				t.Fatalf("grew inside the window: %v, CNPG %s", d.grew, p.appliedCNPG().Spec.Storage.Size)
			}
			if d.recheck != 5*time.Minute {
				t.Errorf("recheck %s, want the rest of the window from the real grow", d.recheck)
			}
			r := p.status.Storage
			if r == nil || r.Size.String() != "77Mi" || r.LastGrowFrom.String() != "64Mi" || !r.LastGrowTime.Time.Equal(t0) || !r.GrowInFlight {
				t.Errorf("status.storage reported %+v, want the real grow at %s", r, t0)
			}
		})
	}
}

// A converged cluster with a mark is not applied again on every pass.
func TestStorageMarkConverges(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakePassiveClock(t0)
	cs := fake.NewClientset()
	p, _ := growPass(t, cs, clk, pgv1.PostgresClusterStatus{}, nil, used(10))
	p, _ = growPass(t, cs, clk, *p.status, p.appliedCNPG(), used(56))
	if p.appliedCNPG().Annotations[storageMarkAnnotation] != `{"size":"77Mi","from":"64Mi","at":"2026-11-30T12:00:00Z"}` {
		t.Fatalf("mark = %q", p.appliedCNPG().Annotations[storageMarkAnnotation])
	}
	clk.SetTime(t0.Add(time.Minute))
	n := len(cs.Actions())
	if _, d := growPass(t, cs, clk, *p.status, p.appliedCNPG(), used(60)); d.grew || len(cs.Actions()) != n {
		t.Fatalf("a converged pass wrote: grew %v, %v", d.grew, cs.Actions()[n:])
	}
}

// A mark setpoint cannot have written counts for nothing it claims: a
// time in the future opens no window, a size beyond what runs is not
// kept, and one that does not parse is ignored.
func TestForgedMarkIsNotTrusted(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakePassiveClock(t0)
	cs := fake.NewClientset()
	p, _ := growPass(t, cs, clk, pgv1.PostgresClusterStatus{}, nil, used(10))
	for name, mark := range map[string]string{
		"time in the future": `{"size":"64Mi","from":"64Mi","at":"2026-12-30T12:00:00Z"}`,
		"size beyond":        `{"size":"96Mi","from":"64Mi","at":"2026-11-30T12:00:00Z"}`,
		"garbage":            `96Mi`,
	} {
		running := p.appliedCNPG().DeepCopy()
		running.Annotations[storageMarkAnnotation] = mark
		if rec := observedGrow(p.cluster, running, t0); rec != nil && rec.LastGrowTime != nil {
			t.Errorf("%s: a window was read from it: %+v", name, rec)
		}
		if got := sizeInEffect(p.cluster, p.want, running); got.String() != "64Mi" {
			t.Errorf("%s: size in effect %s", name, got.String())
		}
	}
	skewed := p.appliedCNPG().DeepCopy()
	skewed.Annotations[storageMarkAnnotation] = `{"size":"64Mi","from":"64Mi","at":"2026-11-30T12:00:30Z"}`
	if rec := observedGrow(p.cluster, skewed, t0); rec == nil || rec.LastGrowTime == nil {
		t.Errorf("a mark 30s ahead (another node's clock) was dropped: %+v", rec)
	}
}

// A grow decided in a pass whose pipeline stopped before the provisioner
// is not reported nor announced: the next pass decides again.
func TestUnappliedGrowIsNotReported(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakePassiveClock(t0)
	cs := fake.NewClientset()
	p, _ := growPass(t, cs, clk, pgv1.PostgresClusterStatus{}, nil, used(10))
	running := p.appliedCNPG()
	pc := cluster(autoGrowSettings())
	want, err := resolveAgainst(pc, class(), running, t0)
	if err != nil {
		t.Fatal(err)
	}
	p = provisionerPass(t, cs, autoGrowSettings())
	p.cluster, p.want, p.obs.cnpg = pc, want, running
	d := p.planStorage(used(56))
	if !d.grew {
		t.Fatal("no grow decided")
	}
	// The provisioner did not run: p.appliedCNPG() is unset.
	if d = p.settleStorage(d); d.grew {
		t.Error("an unapplied grow is announced")
	}
	if st := p.status.Storage; st == nil || st.Size.String() != "64Mi" || st.LastGrowTime != nil || st.GrowInFlight {
		t.Errorf("status.storage reported %+v, want 64Mi and no grow", st)
	}
}
