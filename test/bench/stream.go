package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The latency phase: with the convergence phase's clusters Ready and the
// operator otherwise idle, new PostgresDatabases arrive at a steady rate
// (as a busy platform sees them) and each one's apply → Ready is timed by
// an informer. It measures one change on a busy operator, not a burst.

// streamPrefix names the stream's objects; convergence objects are c###-d#.
const streamPrefix = "s"

// streamResult is what the latency phase measured.
type streamResult struct {
	n         int
	latencies []time.Duration // sorted
	// breakdown: mean time per database in each state, longest first.
	breakdown []string
	before    scrape
	after     scrape
}

// runStream creates rate objects per second for d, spread round-robin
// over w's clusters, and waits until each is Ready.
func (b *bench) runStream(ctx context.Context, op *operatorProc, w workload, rate float64, d time.Duration) (*streamResult, error) {
	n := int(rate * d.Seconds())
	if n < 1 {
		return nil, fmt.Errorf("-stream-rate × -stream-duration gives no database")
	}
	track := newReadiness(n)
	track.only = "database/" + streamPrefix
	track.steps = map[string][]stateStep{}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := watchReadiness(wctx, b.pg, w.ns, track); err != nil {
		return nil, err
	}
	roles := newRoleTrace(streamPrefix, func(obj string) string { return w.prefix + obj })
	if err := roles.watch(wctx, b, w.ns); err != nil {
		return nil, err
	}
	before, err := op.scrape()
	if err != nil {
		return nil, err
	}
	errs := make(chan error, n)
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for i := range n {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
		// Each create in its own goroutine: a slow create must not delay
		// the next arrival, or the rate would bend to the API server.
		wg.Go(func() {
			name := fmt.Sprintf("%s%04d", streamPrefix, i)
			obj := &pgv1.PostgresDatabase{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns},
				Spec: pgv1.PostgresDatabaseSpec{
					ClusterRef: pgv1.LocalObjectReference{Name: w.clusterName(i % w.clusters)},
					Databases:  []pgv1.DatabaseSpec{{Name: w.prefix + name}},
				},
			}
			at := time.Now()
			if _, err := b.pg.PostgresV1alpha1().PostgresDatabases(w.ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
				errs <- fmt.Errorf("create %s: %w", name, err)
				return
			}
			track.markApplied("database/"+name, at)
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	select {
	case <-track.allReady:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-op.done:
		return nil, fmt.Errorf("operator exited during the latency phase; log %s:\n%s", op.logPath, tail(op.logPath, 30))
	case <-time.After(3 * time.Minute):
		got, phases := track.progress()
		return nil, fmt.Errorf("latency phase: %d/%d Ready 3 minutes after the last create, others by phase %v", got, n, phases)
	}
	after, err := settle(ctx, op)
	if err != nil {
		return nil, err
	}
	bd := breakdown(track.timeInStates("database/"), n)
	if m := roles.milestones(track); len(m) > 0 {
		bd = append(append(bd, "role and database hand-over, "+m[0]), prefixed("  ", m[1:])...)
	}
	return &streamResult{n: n, latencies: track.latencies("database/"), breakdown: bd, before: before, after: after}, nil
}

// breakdown turns summed time per state into lines of mean time per
// object, longest first.
func breakdown(by map[string]time.Duration, n int) []string {
	type kv struct {
		state string
		d     time.Duration
	}
	var all []kv
	for k, v := range by {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].d > all[j].d })
	var out []string
	for _, x := range all {
		out = append(out, fmt.Sprintf("%6.3fs  %s", x.d.Seconds()/float64(n), x.state))
	}
	return out
}

// streamFigures adds the latency phase's figures to fig.
func streamFigures(fig map[string]float64, r *streamResult) {
	n := float64(r.n)
	api := diffCounts(r.before.apiCounts(), r.after.apiCounts())
	fig["stream_databases"] = n
	fig["stream_ready_p50_s"] = pct(r.latencies, 0.50)
	fig["stream_ready_p99_s"] = pct(r.latencies, 0.99)
	fig["stream_ready_max_s"] = pct(r.latencies, 1)
	fig["stream_api_writes_per_database"] = sumWrites(api) / n
	fig["stream_status_writes_per_database"] = statusWrites(api, "postgresdatabases") / n
	fig["stream_events_per_database"] = eventWrites(api) / n
	q := diffHistogram(r.before.histogram("workqueue_queue_duration_seconds", "name", "postgresdatabase"),
		r.after.histogram("workqueue_queue_duration_seconds", "name", "postgresdatabase"))
	fig["stream_queue_wait_p99_database_s"] = quantile(0.99, q)
}
