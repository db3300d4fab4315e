package main

import (
	"strings"
	"testing"
	"time"
)

func point(objects int, perObject, fixed float64) curvePoint {
	v := fixed + perObject*float64(objects)
	return curvePoint{Objects: objects, WallSeconds: v, Writes: v, CPUSeconds: v, RSSMiB: v}
}

func TestVerdictsLinearWithFixedCost(t *testing.T) {
	// A large fixed cost makes the per-object cost fall with size; the
	// marginal ratio must still call it linear.
	vs := verdicts([]curvePoint{point(22, 0.2, 10), point(88, 0.2, 10), point(352, 0.2, 10)})
	for _, v := range vs {
		if v.Verdict != "linear" || v.MarginalRatio < 0.99 || v.MarginalRatio > 1.01 {
			t.Errorf("%s: marginal ratio %v, verdict %q; want 1, linear", v.Metric, v.MarginalRatio, v.Verdict)
		}
		if v.PerObjRatio >= 1 {
			t.Errorf("%s: per-object ratio %v; a fixed cost should make it < 1", v.Metric, v.PerObjRatio)
		}
	}
}

func TestVerdictsQuadraticIsSuperLinear(t *testing.T) {
	var pts []curvePoint
	for _, n := range []int{25, 100, 400} {
		v := 0.001 * float64(n*n)
		pts = append(pts, curvePoint{Objects: n, WallSeconds: v, Writes: v, CPUSeconds: v, RSSMiB: v})
	}
	for _, v := range verdicts(pts) {
		if v.Verdict != "super-linear" {
			t.Errorf("%s: verdict %q (marginal ratio %v); want super-linear", v.Metric, v.Verdict, v.MarginalRatio)
		}
	}
}

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("250, 1000,4000")
	if err != nil || len(got) != 3 || got[0] != 250 || got[2] != 4000 {
		t.Fatalf("parseSizes = %v, %v", got, err)
	}
	for _, bad := range []string{"1000,250", "250", "a,b", "0,10"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q) accepted", bad)
		}
	}
}

func TestTimeInStates(t *testing.T) {
	r := newReadiness(1)
	r.steps = map[string][]stateStep{}
	t0 := time.Now()
	r.applied["database/a"] = t0
	r.steps["database/a"] = []stateStep{
		{t0.Add(100 * time.Millisecond), "Pending/ClusterReady:ClusterNotReady"},
		{t0.Add(400 * time.Millisecond), "Provisioning/RolesReady:RolesPending"},
		{t0.Add(1000 * time.Millisecond), "Ready"},
	}
	r.ready["database/a"] = t0.Add(1000 * time.Millisecond)
	got := r.timeInStates("database/")
	want := map[string]time.Duration{
		"(no status yet)":                      100 * time.Millisecond,
		"Pending/ClusterReady:ClusterNotReady": 300 * time.Millisecond,
		"Provisioning/RolesReady:RolesPending": 600 * time.Millisecond,
	}
	if len(got) != len(want) {
		t.Fatalf("timeInStates = %v; want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v; want %v", k, got[k], v)
		}
	}
	lines := breakdown(got, 1)
	if len(lines) != 3 || !strings.Contains(lines[0], "RolesPending") {
		t.Errorf("breakdown = %q; want the longest state first", lines)
	}
}
