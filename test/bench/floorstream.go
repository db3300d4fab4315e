package main

import "math"

// The stream's floor: the lower bound's stream of new databases, timed by
// the same readiness watch in the same window as the operator's
// (stream.go). Latency is judged as throughput is: against this floor,
// measured in the same run, because the absolute seconds move with the
// machine (issue 46) and the floor moves with them.

// floorFigures adds the floor's stream and the ratios operator / floor.
func floorFigures(fig map[string]float64, r *streamResult) {
	fig["floor_stream_ready_p50_s"] = pct(r.floor, 0.50)
	fig["floor_stream_ready_p99_s"] = pct(r.floor, 0.99)
	fig["floor_stream_ready_max_s"] = pct(r.floor, 1)
	fig["stream_ratio_p50"] = ratio(fig["stream_ready_p50_s"], fig["floor_stream_ready_p50_s"])
	fig["stream_ratio_p99"] = ratio(fig["stream_ready_p99_s"], fig["floor_stream_ready_p99_s"])
}

// ratio is a / b, NaN (printed n/a) when the floor measured nothing.
func ratio(a, b float64) float64 {
	if b <= 0 {
		return math.NaN()
	}
	return a / b
}
