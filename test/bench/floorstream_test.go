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

func TestPassFiguresLeaveResyncedSegmentsOut(t *testing.T) {
	pass := func(name, outcome string, v float64) promsample.Sample {
		return promsample.Sample{Name: "setpoint_reconcile_total", Labels: map[string]string{"name": name, "outcome": outcome}, Value: v}
	}
	wait := func(le string, v float64) promsample.Sample {
		return promsample.Sample{Name: "workqueue_queue_duration_seconds_bucket", Labels: map[string]string{"name": "postgresdatabase", "le": le}, Value: v}
	}
	clean := segment{n: 10,
		before: scrape{pass("postgresdatabase", "success", 100), pass("postgresdatabase", "wait", 50), pass("postgrescluster", "success", 7), wait("0.1", 0), wait("+Inf", 0)},
		after:  scrape{pass("postgresdatabase", "success", 110), pass("postgresdatabase", "wait", 70), pass("postgresdatabase", "failed", 1), pass("postgrescluster", "success", 7), wait("0.1", 30), wait("+Inf", 31)}}
	// A resync: every cluster and every converged database passed.
	resync := segment{n: 10,
		before: scrape{pass("postgresdatabase", "success", 110), pass("postgrescluster", "success", 7), wait("0.1", 30), wait("+Inf", 31)},
		after:  scrape{pass("postgresdatabase", "success", 1130), pass("postgrescluster", "success", 107), wait("0.1", 30), wait("+Inf", 1100)}}
	fig := map[string]float64{}
	passFigures(fig, &streamResult{segments: []segment{clean, resync}, clusters: 100})
	want := map[string]float64{"stream_segments": 2, "stream_segments_with_resync": 1,
		"stream_passes_per_database": 3.1, "stream_passes_per_database_success": 1,
		"stream_passes_per_database_wait": 2, "stream_passes_per_database_retry": 0, "stream_passes_per_database_failed": 0.1}
	for k, v := range want {
		if math.Abs(fig[k]-v) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, fig[k], v)
		}
	}
	if _, ok := fig["stream_passes_per_database_panic"]; ok {
		t.Error("an outcome that did not happen is printed")
	}
	if q := fig["stream_queue_wait_p99_database_s"]; q > 0.1 {
		t.Errorf("queue wait p99 %v: the resync's keys counted", q)
	}
}
