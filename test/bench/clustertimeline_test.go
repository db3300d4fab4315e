package main

import (
	"testing"
	"time"
)

func TestClusterSpansNeedAllFourMoments(t *testing.T) {
	at := time.Now()
	ms := func(n int) time.Time { return at.Add(time.Duration(n) * time.Millisecond) }
	tr := newLightTrack("c")
	tr.markCreated("c000", ms(0))
	tr.applied["c000"], tr.healthy["c000"], tr.ready["c000"] = ms(300), ms(2300), ms(2400)
	// CNPG applied the monitor role after the Cluster was healthy: the
	// operator's share is from there.
	tr.monitor["c000"] = ms(2350)
	// Never Ready: left out.
	tr.markCreated("c001", ms(0))
	tr.applied["c001"], tr.healthy["c001"] = ms(100), ms(900)

	s := tr.spans()
	if s.n != 1 {
		t.Fatalf("clusters measured: %d, want 1", s.n)
	}
	for name, got := range map[string][]time.Duration{
		"create → applied": s.createToApplied, "applied → healthy": s.appliedToHealthy,
		"healthy → Ready": s.healthyToReady, "create → Ready": s.createToReady,
	} {
		want := map[string]time.Duration{"create → applied": 300 * time.Millisecond, "applied → healthy": 2 * time.Second,
			"healthy → Ready": 100 * time.Millisecond, "create → Ready": 2400 * time.Millisecond}[name]
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: %v, want [%v]", name, got, want)
		}
	}
	fig := map[string]float64{}
	spanFigures(fig, "cluster_", s)
	if len(s.afterCNPG) != 1 || s.afterCNPG[0] != 50*time.Millisecond {
		t.Errorf("CNPG done → Ready: %v, want [50ms]", s.afterCNPG)
	}
	if fig["cluster_healthy_to_ready_p50_s"] != 0.1 || fig["cluster_create_to_cnpg_applied_p99_s"] != 0.3 || fig["cluster_cnpg_done_to_ready_p50_s"] != 0.05 {
		t.Errorf("figures: %v", fig)
	}
}
