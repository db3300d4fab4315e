package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCriticalPassesFromTheLog(t *testing.T) {
	log := `I1208 00:28:25.495100   13698 queue.go:222] "Reconcile lost a write race; retrying" key="bench-r1/s0001" took="5ms" outcome="retry" retries=1 err="conflict"
I1208 00:28:25.600000   13698 queue.go:192] "Reconcile waiting" key="bench-r1/s0001" took="20ms" outcome="wait" after="30s"
I1208 00:28:26.100000   13698 queue.go:195] "Reconciled" key="bench-r1/s0001" took="300ms" outcome="success"
I1208 00:28:26.500000   13698 queue.go:195] "Reconciled" key="bench-r1/s0001" took="10ms" outcome="success"
I1208 00:28:25.600000   13698 queue.go:192] "Reconcile waiting" key="bench-r1/c000-d1" took="20ms" outcome="wait" after="30s"
I1208 00:28:25.600000   13698 queue.go:192] "Reconcile waiting" key="other/s0001" took="20ms" outcome="wait" after="30s"
I1208 00:28:25.700000   13698 step_secrets.go:132] "Created Secret" key="bench-r1/s0001"
`
	path := filepath.Join(t.TempDir(), "operator.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	passes, err := readPasses(path, "bench-r1", "s", 2026, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if len(passes) != 1 || len(passes["s0001"]) != 4 {
		t.Fatalf("passes: %v, want the four of s0001", passes)
	}
	if want := time.Date(2026, 12, 8, 0, 28, 25, 800_000_000, time.UTC); !passes["s0001"][2].start.Equal(want) {
		t.Errorf("third pass started %v, want %v (its end less its length)", passes["s0001"][2].start, want)
	}
	// Created at 25.4 s, seen Ready at 26.2 s: the three passes that
	// started in between are on its path; the one after is not.
	r := newReadiness(1)
	r.applied["database/s0001"] = time.Date(2026, 12, 8, 0, 28, 25, 400_000_000, time.UTC)
	r.ready["database/s0001"] = time.Date(2026, 12, 8, 0, 28, 26, 200_000_000, time.UTC)
	byOutcome, n := criticalPasses(passes, r)
	if n != 1 || byOutcome["retry"] != 1 || byOutcome["wait"] != 1 || byOutcome["success"] != 1 {
		t.Errorf("critical passes: %v over %d databases, want one retry, one wait, one success over 1", byOutcome, n)
	}
	fig := map[string]float64{}
	criticalPassFigures(fig, byOutcome, n)
	if fig["stream_critical_passes_per_database"] != 3 || fig["stream_critical_passes_per_database_wait"] != 1 {
		t.Errorf("figures: %v", fig)
	}
}
