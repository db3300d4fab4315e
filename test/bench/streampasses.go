package main

// What the operator did for each stream database, read from its metrics
// over the stream's window. The metrics are per queue, not per key, so
// these are the window's totals over the stream's databases: with the
// converged objects idle, the stream's databases are the only keys with
// work, unless a periodic resync falls in the window. The cluster passes
// in the window say whether one did (a resync passes every cluster).

// passOutcomes are setpoint_reconcile_total's outcomes (pkg/workqueue).
var passOutcomes = []string{"success", "wait", "retry", "terminal", "failed", "panic"}

// passFigures adds the database passes per stream database, by outcome,
// and the cluster passes in the window.
func passFigures(fig map[string]float64, r *streamResult) {
	n := float64(r.n)
	delta := func(match ...string) float64 {
		return r.after.sum("setpoint_reconcile_total", match...) - r.before.sum("setpoint_reconcile_total", match...)
	}
	fig["stream_passes_per_database"] = delta("name", "postgresdatabase") / n
	for _, o := range passOutcomes {
		v := delta("name", "postgresdatabase", "outcome", o)
		// The rare outcomes are printed only when they happened.
		if v > 0 || o == "success" || o == "wait" || o == "retry" {
			fig["stream_passes_per_database_"+o] = v / n
		}
	}
	fig["stream_cluster_passes"] = delta("name", "postgrescluster")
}
