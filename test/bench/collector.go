package main

import (
	"context"
	"fmt"
	"time"
)

// collectorResult is what the collector cost phase measured.
type collectorResult struct {
	window                     time.Duration
	samples, errors            float64
	connections, statements    float64
	cpu                        float64
	writes, reconciles, edges  float64
	durationP50, durationP99   float64
	clusters, samplesPerMinute float64
	warmUp                     time.Duration
	warmUpWrites               float64
}

// collectorOff is the operator flag for every phase but the collector's:
// on the shared backend one sample measures the size of every cluster's
// databases (all of them live on one server), hundreds of times a real
// cluster's sample, and would load the server the other phases measure.
const collectorOff = "--postgres-sample-interval=0"

// collectorCost measures the background health collector on the
// converged clusters, with a fresh operator whose collector is on (the
// earlier phases ran it off). It first waits until every cluster has been
// sampled once and the passes those first samples woke (the first record
// of status.postgres) are done; that warm-up is reported apart. Then the
// window: the operator is otherwise idle, so over rounds intervals the
// collector samples every cluster rounds times. The window is delimited
// by the collector's own count of samples, not by a sleep. Nothing
// changes in Postgres meanwhile, so every API write or edge in the window
// is a cost the collector must not have.
func (b *bench) collectorCost(ctx context.Context, rep int, w workload, rounds int) (*collectorResult, error) {
	f := b.f
	op, err := b.startWatching(ctx, fmt.Sprintf("operator-collector-r%d", rep), w.ns, b.hostMap,
		"--postgres-sample-interval", f.collectorInterval.String(),
		// One sample reads the size of every database on the shared
		// server (thousands): with four at once it can pass the default
		// 5 s, and a sample cut short is an edge (PostgresUnreachable). A
		// cluster's own server answers in milliseconds.
		"--postgres-timeout", "30s")
	if err != nil {
		return nil, err
	}
	defer op.kill()
	t0 := time.Now()
	s0, err := b.collectorWarmUp(ctx, op, w)
	if err != nil {
		return nil, err
	}
	warmUp := time.Since(t0)
	logf("r%d: collector: every cluster sampled once after %.0fs (%.0f API writes)", rep, warmUp.Seconds(), sumWrites(s0.apiCounts()))
	clusters := w.clusters
	t0 = time.Now()
	want := s0.sum("setpoint_collector_samples_total") + float64(rounds*clusters)
	deadline := t0.Add(time.Duration(rounds+2)*f.collectorInterval + time.Minute)
	var s1 scrape
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
		if s1, err = op.scrape(); err != nil {
			return nil, err
		}
		if s1.sum("setpoint_collector_samples_total") >= want {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("collector took %.0f of %d samples in %v", s1.sum("setpoint_collector_samples_total")-want+float64(rounds*clusters),
				rounds*clusters, time.Since(t0).Round(time.Second))
		}
	}
	window := time.Since(t0)
	d := func(family string, match ...string) float64 {
		return s1.sum(family, match...) - s0.sum(family, match...)
	}
	r := &collectorResult{
		window: window, clusters: float64(clusters), warmUp: warmUp, warmUpWrites: sumWrites(s0.apiCounts()),
		samples: d("setpoint_collector_samples_total"), errors: d("setpoint_collector_samples_total", "result", "error"),
		connections: d("setpoint_collector_connections_total"), statements: d("setpoint_collector_statements_total"),
		cpu:    d("process_cpu_seconds_total"),
		writes: sumWrites(diffCounts(s0.apiCounts(), s1.apiCounts())),
		// Passes the collector woke; resync passes are the idle phase's.
		edges:       d("setpoint_collector_edges_total"),
		reconciles:  d("setpoint_reconcile_total", "name", "postgrescluster"),
		durationP50: quantile(0.50, s1.histogram("setpoint_collector_sample_duration_seconds")),
		durationP99: quantile(0.99, s1.histogram("setpoint_collector_sample_duration_seconds")),
	}
	r.samplesPerMinute = r.samples / window.Minutes()
	return r, nil
}

// collectorWarmUp waits until the collector has sampled every cluster of
// w once (one sample_failing series each), the queues are empty and the writes those
// first samples caused are out; it returns that scrape. The clusters
// already Ready when the operator starts are spread over one interval.
func (b *bench) collectorWarmUp(ctx context.Context, op *operatorProc, w workload) (scrape, error) {
	deadline := time.Now().Add(2*b.f.collectorInterval + 5*time.Minute)
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
		s, err := op.scrape()
		if err != nil {
			return nil, err
		}
		// sample_failing has a series per cluster sampled, ok or not.
		n := s.count("setpoint_postgres_sample_failing", "namespace", w.ns)
		if n >= w.clusters && s.sum("workqueue_depth") == 0 {
			return settle(ctx, op)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("collector sampled %d of %d clusters by the deadline", n, w.clusters)
		}
	}
}

// collectorFigures adds the phase's figures, per minute of window.
func collectorFigures(fig map[string]float64, r *collectorResult) {
	perMin := func(v float64) float64 { return v / r.window.Minutes() }
	fig["collector_window_s"] = r.window.Seconds()
	fig["collector_warm_up_s"] = r.warmUp.Seconds()
	fig["collector_warm_up_writes_per_cluster"] = r.warmUpWrites / max(r.clusters, 1)
	fig["collector_clusters"] = r.clusters
	fig["collector_samples_per_min"] = perMin(r.samples)
	fig["collector_failed_samples"] = r.errors
	fig["collector_connections_per_min"] = perMin(r.connections)
	fig["collector_statements_per_min"] = perMin(r.statements)
	fig["collector_cpu_s_per_min"] = perMin(r.cpu)
	fig["collector_cpu_ms_per_sample"] = 1000 * r.cpu / max(r.samples, 1)
	fig["collector_sample_p50_s"], fig["collector_sample_p99_s"] = r.durationP50, r.durationP99
	fig["collector_api_writes"] = r.writes
	fig["collector_edges"] = r.edges
	fig["collector_reconciles"] = r.reconciles
}
