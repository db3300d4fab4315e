package cluster

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// testSettler is a settler on a clock of its own, which the test moves.
func testSettler() (*phaseSettler, *clocktesting.FakeClock) {
	clock := clocktesting.NewFakeClock(time.Unix(1_800_000_000, 0))
	return newPhaseSettler(clock), clock
}

var settleKey = types.NamespacedName{Namespace: "ns", Name: "shop"}

func cnpgIn(phase string) *cnpgv1.Cluster {
	return &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", UID: "cnpg-1"},
		Status: cnpgv1.ClusterStatus{Phase: phase, Instances: 1}}
}

func expectShown(t *testing.T, s *phaseSettler, cl *cnpgv1.Cluster, phase string, recheck time.Duration) {
	t.Helper()
	v, after := s.view(t.Context(), settleKey, cl)
	if v.phase != phase || after != recheck {
		t.Fatalf("CNPG in %q: shown %q, recheck %v; want %q, %v", cl.Status.Phase, v.phase, after, phase, recheck)
	}
}

// A change is reported once it has held still for phaseSettle, with a
// recheck at that moment; until then the previous status is.
func TestSettlerReportsAChangeOnceSettled(t *testing.T) {
	t.Parallel()
	s, clock := testSettler()
	expectShown(t, s, cnpgIn(""), "", 0) // first sight: as it is
	expectShown(t, s, cnpgIn("Setting up primary"), "", phaseSettle)
	clock.Step(time.Second)
	expectShown(t, s, cnpgIn("Setting up primary"), "", phaseSettle-time.Second)
	clock.Step(time.Second)
	expectShown(t, s, cnpgIn("Setting up primary"), "Setting up primary", 0)
	// Becoming healthy is reported at once.
	clock.Step(time.Second)
	expectShown(t, s, cnpgIn("Cluster in healthy state"), "Cluster in healthy state", 0)

	// Steps faster than phaseSettle become one report of the last.
	expectShown(t, s, cnpgIn("Failing over"), "Cluster in healthy state", phaseSettle)
	clock.Step(10 * time.Millisecond)
	expectShown(t, s, cnpgIn(phaseUnrecoverable), "Cluster in healthy state", phaseSettle)
	clock.Step(phaseSettle)
	expectShown(t, s, cnpgIn(phaseUnrecoverable), phaseUnrecoverable, 0)

	// Any field a pass reports counts, not only the phase.
	ready := cnpgIn(phaseUnrecoverable)
	ready.Status.ReadyInstances = 1
	if v, after := s.view(t.Context(), settleKey, ready); v.readyInstances != 0 || after != phaseSettle {
		t.Fatalf("readyInstances change reported at once: %+v, recheck %v", v, after)
	}
}

const phaseUnrecoverable = "Cluster is unrecoverable and needs manual intervention"

// A blip that comes back within phaseSettle is never reported, and ends
// its episode: a later change waits its own phaseSettle, however long
// after the blip it comes.
func TestSettlerAbsorbsABlip(t *testing.T) {
	t.Parallel()
	s, clock := testSettler()
	const plugin = "Cluster cannot proceed to reconciliation due to an error while interacting with plugins"
	expectShown(t, s, cnpgIn(plugin), plugin, 0)
	for range 4 { // CNPG retrying a plugin call every 15 s
		clock.Step(15 * time.Second)
		expectShown(t, s, cnpgIn("Setting up primary"), plugin, phaseSettle)
		clock.Step(5 * time.Millisecond)
		expectShown(t, s, cnpgIn(plugin), plugin, 0)
	}
	clock.Step(phaseMaxHold)
	expectShown(t, s, cnpgIn("Setting up primary"), plugin, phaseSettle)
	clock.Step(phaseSettle)
	expectShown(t, s, cnpgIn("Setting up primary"), "Setting up primary", 0)
}

// A status that never holds still is reported at most once per
// phaseMaxHold, and the last one within phaseSettle of the end.
func TestSettlerBoundsAFlap(t *testing.T) {
	t.Parallel()
	s, clock := testSettler()
	expectShown(t, s, cnpgIn("Cluster in healthy state"), "Cluster in healthy state", 0)
	phases := []string{phaseUnrecoverable, "Failing over"}
	shown, reports := "Cluster in healthy state", 0
	const flap = 100 * time.Millisecond
	began := clock.Now()
	for i := 0; clock.Since(began) < 3*time.Minute; i++ {
		clock.Step(flap)
		v, after := s.view(t.Context(), settleKey, cnpgIn(phases[i%2]))
		if after > phaseMaxHold {
			t.Fatalf("recheck %v beyond the max hold", after)
		}
		if v.phase != shown {
			shown = v.phase
			reports++
		}
	}
	// 3 minutes of flapping: one report per max hold, none in between.
	if want := int(3 * time.Minute / phaseMaxHold); reports < want-1 || reports > want {
		t.Fatalf("%d reports over 3 minutes of a flap every %v, want about %d (one per %v)", reports, flap, want, phaseMaxHold)
	}
	// It stops on "Failing over": reported phaseSettle later at the latest.
	clock.Step(flap)
	if _, after := s.view(t.Context(), settleKey, cnpgIn("Failing over")); after > phaseSettle {
		t.Fatalf("recheck %v after the flap stopped, want at most %v", after, phaseSettle)
	}
	clock.Step(phaseSettle)
	expectShown(t, s, cnpgIn("Failing over"), "Failing over", 0)
}

// A new CNPG Cluster under the name starts afresh; a nil settler (unit
// tests of other components) reports as it is; forget drops the record.
func TestSettlerStartsAfresh(t *testing.T) {
	t.Parallel()
	s, _ := testSettler()
	expectShown(t, s, cnpgIn("Cluster in healthy state"), "Cluster in healthy state", 0)
	other := cnpgIn("Setting up primary")
	other.UID = "cnpg-2"
	expectShown(t, s, other, "Setting up primary", 0)
	s.forget(settleKey)
	expectShown(t, s, cnpgIn("Failing over"), "Failing over", 0)
	var none *phaseSettler
	expectShown(t, none, cnpgIn("Failing over"), "Failing over", 0)
	none.forget(settleKey)
}

// Becoming healthy is reported at once, but only once per phaseMaxHold:
// a cluster flapping in and out of healthy is coalesced like any flap.
func TestSettlerReportsHealthyAtOnceOncePerMaxHold(t *testing.T) {
	t.Parallel()
	s, clock := testSettler()
	expectShown(t, s, cnpgIn("Setting up primary"), "Setting up primary", 0)
	clock.Step(time.Second)
	expectShown(t, s, cnpgIn(cnpgHealthy), cnpgHealthy, 0)
	clock.Step(time.Second)
	expectShown(t, s, cnpgIn("Failing over"), cnpgHealthy, phaseSettle)
	clock.Step(phaseSettle)
	expectShown(t, s, cnpgIn("Failing over"), "Failing over", 0)
	clock.Step(time.Second)
	expectShown(t, s, cnpgIn(cnpgHealthy), "Failing over", phaseSettle) // 4 s after the last: held
	clock.Step(phaseSettle)
	expectShown(t, s, cnpgIn(cnpgHealthy), cnpgHealthy, 0)
	clock.Step(phaseMaxHold)
	expectShown(t, s, cnpgIn("Failing over"), cnpgHealthy, phaseSettle)
	clock.Step(phaseSettle)
	expectShown(t, s, cnpgIn("Failing over"), "Failing over", 0)
	clock.Step(time.Second)
	expectShown(t, s, cnpgIn(cnpgHealthy), cnpgHealthy, 0) // a max hold later: at once again
}
