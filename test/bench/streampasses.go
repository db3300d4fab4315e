package main

// What the operator did for each stream database, read from its metrics.
// The metrics are per queue, not per key, so these are totals over the
// stream's databases: with the converged objects idle, the stream's
// databases are the only keys with work, except when a periodic resync
// passes every object. The stream therefore comes in drained segments
// (stream.go), and a segment in which the clusters were passed, as a
// resync does, is left out of these figures.

// passOutcomes are setpoint_reconcile_total's outcomes (pkg/workqueue).
var passOutcomes = []string{"success", "wait", "retry", "terminal", "failed", "panic"}

// segment is one drained part of the stream: its databases per side and
// the operator's metrics before its first create and once they were all
// Ready.
type segment struct {
	n             int
	before, after scrape
}

func (s segment) delta(family string, match ...string) float64 {
	return s.after.sum(family, match...) - s.before.sum(family, match...)
}

// resynced says whether a resync fell in the segment: the stream's
// databases pass no cluster, a resync passes all of them.
func (s segment) resynced(clusters int) bool {
	return s.delta("setpoint_reconcile_total", "name", "postgrescluster") >= float64(clusters)/2
}

// passFigures adds the database passes per stream database, by outcome,
// and the queue wait of the database queue, over the segments without a
// resync.
func passFigures(fig map[string]float64, r *streamResult) {
	var clean []segment
	n := 0
	for _, s := range r.segments {
		if !s.resynced(r.clusters) {
			clean = append(clean, s)
			n += s.n
		}
	}
	fig["stream_segments"] = float64(len(r.segments))
	fig["stream_segments_with_resync"] = float64(len(r.segments) - len(clean))
	if n == 0 {
		return
	}
	sum := func(match ...string) float64 {
		var t float64
		for _, s := range clean {
			t += s.delta("setpoint_reconcile_total", match...)
		}
		return t
	}
	fig["stream_passes_per_database"] = sum("name", "postgresdatabase") / float64(n)
	for _, o := range passOutcomes {
		v := sum("name", "postgresdatabase", "outcome", o)
		// The rare outcomes are printed only when they happened.
		if v > 0 || o == "success" || o == "wait" || o == "retry" {
			fig["stream_passes_per_database_"+o] = v / float64(n)
		}
	}
	var q []bucket
	for _, s := range clean {
		q = addHistogram(q, diffHistogram(s.before.histogram("workqueue_queue_duration_seconds", "name", "postgresdatabase"),
			s.after.histogram("workqueue_queue_duration_seconds", "name", "postgresdatabase")))
	}
	fig["stream_queue_wait_p50_database_s"] = quantile(0.50, q)
	fig["stream_queue_wait_p99_database_s"] = quantile(0.99, q)
}

// addHistogram adds two cumulative histograms of the same buckets (a nil
// one counts as empty).
func addHistogram(a, b []bucket) []bucket {
	if a == nil {
		return append([]bucket(nil), b...)
	}
	out := append([]bucket(nil), a...)
	for i := range out {
		if i < len(b) && b[i].le == out[i].le {
			out[i].count += b[i].count
		}
	}
	return out
}
