package collector

import (
	"math"
	"testing"
	"time"
)

const gib = int64(1) << 30

// used is a healthy sample of a 10 GiB volume holding frac of it.
func used(frac float64) Sample {
	return Sample{At: time.Now(), DatabaseBytes: int64(math.Round(frac * float64(10*gib))), AcceptsWrites: true,
		Connections: 5, MaxConnections: 100, SizeBytes: 10 * gib}
}

func TestNearlyFullHysteresis(t *testing.T) {
	th := Thresholds{NearlyFull: 0.8}
	steps := []struct {
		frac float64
		want bool
	}{
		{0.50, false},
		{0.79, false},
		{0.80, true}, // reaching the threshold is the edge
		{0.81, true},
		{0.79, true}, // hovering just under: no flapping
		{0.785, true},
		{0.779, false}, // 2 % under: cleared
		{0.79, false},  // and back up, not yet over
		{0.80, true},
	}
	l := Level{}
	for i, st := range steps {
		l = next(l, used(st.frac), th)
		if l.NearlyFull != st.want {
			t.Fatalf("step %d (%.3f): NearlyFull = %v, want %v", i, st.frac, l.NearlyFull, st.want)
		}
	}
}

func TestSteadySamplesAreNoEdge(t *testing.T) {
	th := Thresholds{NearlyFull: 0.9, Wake: []float64{0.8}}
	l := next(Level{}, used(0.42), th)
	for _, f := range []float64{0.42, 0.43, 0.41, 0.45, 0.40, 0.49} {
		n := next(l, used(f), th)
		if n != l {
			t.Fatalf("usage %.2f within the band changed the level %+v -> %+v", f, l, n)
		}
	}
}

func TestEveryEdge(t *testing.T) {
	th := Thresholds{NearlyFull: 0.9, Wake: []float64{0.8}}
	base := used(0.42)
	l := next(Level{}, base, th)
	cases := map[string]func(s *Sample){
		"read-only":     func(s *Sample) { s.AcceptsWrites = false },
		"saturated":     func(s *Sample) { s.Connections = 90 },
		"unreachable":   func(s *Sample) { *s = Sample{Err: "connection refused"} },
		"next band":     func(s *Sample) { s.DatabaseBytes = 5 * gib },
		"wake":          func(s *Sample) { s.DatabaseBytes = 8 * gib },
		"nearly full":   func(s *Sample) { s.DatabaseBytes = 9 * gib },
		"volume grown":  func(s *Sample) { s.SizeBytes = 100 * gib },
		"band dropped":  func(s *Sample) { s.DatabaseBytes = 3 * gib },
		"size unknown":  func(s *Sample) { s.SizeBytes = 0 },
		"standby":       func(s *Sample) { s.AcceptsWrites, s.InRecovery = false, true },
		"over capacity": func(s *Sample) { s.DatabaseBytes = 11 * gib },
	}
	for name, mutate := range cases {
		s := base
		mutate(&s)
		if n := next(l, s, th); n == l {
			t.Errorf("%s: level unchanged %+v", name, n)
		}
	}
}

func TestSaturationHysteresis(t *testing.T) {
	l := Level{}
	for i, st := range []struct {
		conns int
		want  bool
	}{{50, false}, {89, false}, {90, true}, {86, true}, {85, true}, {84, false}, {89, false}} {
		s := used(0.1)
		s.Connections = st.conns
		if l = next(l, s, Thresholds{}); l.Saturated != st.want {
			t.Fatalf("step %d (%d of 100): Saturated = %v, want %v", i, st.conns, l.Saturated, st.want)
		}
	}
}

func TestRecoveryStartsAfresh(t *testing.T) {
	th := Thresholds{NearlyFull: 0.9}
	l := next(Level{}, used(0.95), th)
	l = next(l, Sample{Err: "timeout"}, th)
	if l != (Level{}) {
		t.Fatalf("unreachable level = %+v, want only Reachable=false", l)
	}
	l = next(l, used(0.89), th)
	if !l.Reachable || l.NearlyFull || l.Band != 8 {
		t.Fatalf("after recovery at 89%%: %+v, want reachable, band 8, not nearly full", l)
	}
}

func TestBandHolds(t *testing.T) {
	for _, c := range []struct {
		band       int
		used, size int64
		want       bool
	}{
		{4, 45, 100, true},
		{5, 49, 100, true}, // a band left downwards within the margin still holds
		{5, 47, 100, false},
		{4, 50, 100, false},
		{0, 0, 0, true},
		{3, 10, 0, false},
	} {
		if got := BandHolds(c.band, c.used, c.size); got != c.want {
			t.Errorf("BandHolds(%d, %d, %d) = %v, want %v", c.band, c.used, c.size, got, c.want)
		}
	}
}

func TestSmallThresholdClears(t *testing.T) {
	th := Thresholds{NearlyFull: 0.01}
	l := next(Level{}, used(0.012), th)
	if !l.NearlyFull {
		t.Fatal("1.2 % is not over a 1 % threshold")
	}
	if l = next(l, used(0.004), th); l.NearlyFull {
		t.Error("a 1 % threshold never clears: its margin is wider than the threshold")
	}
}
