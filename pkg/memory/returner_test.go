package memory

import (
	"context"
	"runtime"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// sink keeps the burst's allocations from being optimised away.
var sink [][]byte

// TestReturnerGivesBackWhatABurstLeft runs the real runtime: a burst of
// allocations freed by a collection leaves pages kept; after a quiet look
// the Returner gives them back, and the runtime then keeps less than the
// threshold.
func TestReturnerGivesBackWhatABurstLeft(t *testing.T) {
	r := NewReturner(0, prometheus.NewRegistry())
	ctx := context.Background()
	r.look(ctx) // remembers the starting point
	for i := 0; i < 4096; i++ {
		sink = append(sink, make([]byte, 32<<10)) // 128 MiB in all
	}
	sink = nil
	runtime.GC() // the burst's pages are now free but kept
	if kept := r.read().kept; kept < defaultThresholds.minKept {
		t.Fatalf("after the burst the runtime keeps %d bytes, want at least %d for the test to mean anything", kept, defaultThresholds.minKept)
	}
	r.look(ctx) // the burst's period: not quiet
	if got := testutil.ToFloat64(r.returns); got != 0 {
		t.Fatalf("returns after a busy period = %v, want 0", got)
	}
	keptBefore := r.read().kept
	r.look(ctx) // quiet
	if got := testutil.ToFloat64(r.returns); got != 1 {
		t.Fatalf("returns after the quiet period = %v, want 1", got)
	}
	// Allocation goes on (this test's, the runtime's own), so not all of
	// it stays returned; most of it does.
	if kept := r.read().kept; kept > keptBefore/2 {
		t.Errorf("after the return the runtime keeps %d bytes, want at most half of the %d before", kept, keptBefore)
	}
	if got := testutil.ToFloat64(r.returned); got < float64(keptBefore/2) {
		t.Errorf("returned bytes counted = %v, want at least half of the %d kept before", got, keptBefore)
	}
	r.look(ctx) // still quiet, but no burst since: nothing more
	if got := testutil.ToFloat64(r.returns); got != 1 {
		t.Errorf("returns after a second quiet period = %v, want still 1", got)
	}
}
