package main

import (
	"math"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/test/promsample"
)

func TestFloorFiguresRatios(t *testing.T) {
	fig := map[string]float64{"stream_ready_p50_s": 3, "stream_ready_p99_s": 6}
	floorFigures(fig, &streamResult{floor: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}})
	if fig["floor_stream_ready_p50_s"] != 2 || fig["stream_ratio_p50"] != 1.5 {
		t.Errorf("p50: floor %v, ratio %v", fig["floor_stream_ready_p50_s"], fig["stream_ratio_p50"])
	}
	if fig["floor_stream_ready_p99_s"] != 4 || fig["stream_ratio_p99"] != 1.5 {
		t.Errorf("p99: floor %v, ratio %v", fig["floor_stream_ready_p99_s"], fig["stream_ratio_p99"])
	}
	empty := map[string]float64{"stream_ready_p50_s": 3}
	floorFigures(empty, &streamResult{})
	if !math.IsNaN(empty["stream_ratio_p50"]) {
		t.Errorf("a floor that measured nothing gave ratio %v, want n/a", empty["stream_ratio_p50"])
	}
}

func TestPassFiguresPerStreamDatabase(t *testing.T) {
	pass := func(name, outcome string, v float64) promsample.Sample {
		return promsample.Sample{Name: "setpoint_reconcile_total", Labels: map[string]string{"name": name, "outcome": outcome}, Value: v}
	}
	before := scrape{pass("postgresdatabase", "success", 100), pass("postgresdatabase", "wait", 50), pass("postgrescluster", "success", 7)}
	after := scrape{pass("postgresdatabase", "success", 110), pass("postgresdatabase", "wait", 70), pass("postgresdatabase", "failed", 1), pass("postgrescluster", "success", 7)}
	fig := map[string]float64{}
	passFigures(fig, &streamResult{n: 10, before: before, after: after})
	want := map[string]float64{"stream_passes_per_database": 3.1, "stream_passes_per_database_success": 1,
		"stream_passes_per_database_wait": 2, "stream_passes_per_database_retry": 0, "stream_passes_per_database_failed": 0.1,
		"stream_cluster_passes": 0}
	for k, v := range want {
		if math.Abs(fig[k]-v) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, fig[k], v)
		}
	}
	if _, ok := fig["stream_passes_per_database_panic"]; ok {
		t.Error("an outcome that did not happen is printed")
	}
}
