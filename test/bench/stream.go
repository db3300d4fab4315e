package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
)

// The latency phase: with the convergence phase's clusters Ready and the
// operator otherwise idle, new PostgresDatabases arrive at a steady rate
// (as a busy platform sees them) and each one's apply → Ready is timed by
// an informer. It measures one change on a busy operator, not a burst.
//
// Its floor is the lower bound's stream: the same rate of new databases
// over the converged lower bound's clusters, done by its loop and its
// instance managers (lbRun), timed by the same readiness watch. The two
// streams are interleaved, one arrival of each in turn, so that both run
// on the same machine at the same moments: neither gets the warmer or the
// quieter minute, and the operator's periodic resync, if one falls in the
// window, falls in both. The price is that each stream runs beside the
// other's load; the ratio operator / floor is what to read, not either
// side's seconds.

// streamPrefix names the stream's objects; convergence objects are c###-d#.
const streamPrefix = "s"

// streamResult is what the latency phase measured.
type streamResult struct {
	n         int
	latencies []time.Duration // the operator's, sorted
	floor     []time.Duration // the lower bound's, sorted
	// breakdown: mean time per database in each state, longest first.
	breakdown []string
	// before and after: the operator's metrics around the whole stream.
	before, after scrape
	// segments: around each drained part of it; clusters: the converged
	// clusters a resync passes.
	segments []segment
	clusters int
	// apiRTT: the bench's own API reads during the stream (marks.go).
	apiRTT      []time.Duration
	apiRTTFails int
	// critical: the passes on the stream databases' critical paths, by
	// outcome, over criticalN databases (criticalpath.go); nil without
	// the pass log.
	critical  map[string]float64
	criticalN int
}

// streamSide is one of the two streams: where its databases go and what
// follows their create.
type streamSide struct {
	w      workload
	client versioned.Interface
	track  *readiness
	// then runs after the create in the arrival's goroutine: the lower
	// bound's work for the database; nil for the operator's.
	then func(*pgv1.PostgresDatabase) error
}

func newStreamSide(w workload, client versioned.Interface, n int) *streamSide {
	track := newReadiness(n)
	track.only = "database/" + streamPrefix
	track.steps = map[string][]stateStep{}
	return &streamSide{w: w, client: client, track: track}
}

// arrive creates the i-th database of the side and, for the lower bound,
// does its work.
func (s *streamSide) arrive(ctx context.Context, i int) error {
	name := fmt.Sprintf("%s%04d", streamPrefix, i)
	obj := &pgv1.PostgresDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.w.ns},
		Spec: pgv1.PostgresDatabaseSpec{
			ClusterRef: pgv1.ClusterReference{Name: s.w.clusterName(i % s.w.clusters)},
			Databases:  []pgv1.DatabaseSpec{{Name: s.w.prefix + name}},
		},
	}
	at := time.Now()
	got, err := s.client.PostgresV1alpha1().PostgresDatabases(s.w.ns).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create %s/%s: %w", s.w.ns, name, err)
	}
	s.track.markApplied("database/"+name, at)
	if s.then != nil {
		return s.then(got)
	}
	return nil
}

// runStream creates rate databases per second for d on each side, spread
// round-robin over each side's clusters, the two sides' arrivals
// interleaved, and waits until every one is Ready.
func (b *bench) runStream(ctx context.Context, op *operatorProc, w workload, floor *lbRun, lbW workload, rate float64, d time.Duration) (*streamResult, error) {
	n := int(rate * d.Seconds())
	if n < 1 {
		return nil, fmt.Errorf("-stream-rate × -stream-duration gives no database")
	}
	ops := newStreamSide(w, b.pg, n)
	lbs := newStreamSide(lbW, floor.creator, n)
	lbs.then = floor.database
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, s := range []*streamSide{ops, lbs} {
		if err := watchReadiness(wctx, b.pg, s.w.ns, s.track); err != nil {
			return nil, fmt.Errorf("stream readiness watch: %w", err)
		}
	}
	roles := newRoleTrace(streamPrefix, func(obj string) string { return w.prefix + obj })
	if err := roles.watch(wctx, b, w.ns); err != nil {
		return nil, fmt.Errorf("stream hand-over watch: %w", err)
	}
	probe, err := startAPIProbe(wctx, b.env.Config, w.ns)
	if err != nil {
		return nil, err
	}
	errs := make(chan error, 2*n)
	var wg sync.WaitGroup
	var segs []segment
	for first := 0; first < n; {
		count := min(n-first, max(1, int(rate*segmentLength.Seconds())))
		seg, err := b.streamSegment(ctx, op, ops, lbs, first, count, rate, errs, &wg)
		if err != nil {
			return nil, err
		}
		segs = append(segs, seg)
		first += count
	}
	wg.Wait()
	rtt, fails := probe.finish()
	var critical map[string]float64
	var criticalN int
	if b.f.passLog {
		passes, err := readPasses(op.logPath, w.ns, streamPrefix, time.Now().Year(), time.Local)
		if err != nil {
			return nil, fmt.Errorf("stream: the operator's pass log: %w", err)
		}
		critical, criticalN = criticalPasses(passes, ops.track)
	}
	bd := breakdown(ops.track.timeInStates("database/"), n)
	if m := roles.milestones(ops.track); len(m) > 0 {
		bd = append(append(bd, "role and database hand-over, "+m[0]), prefixed("  ", m[1:])...)
	}
	return &streamResult{n: n, latencies: ops.track.latencies("database/"), floor: lbs.track.latencies("database/"),
		breakdown: bd, before: segs[0].before, after: segs[len(segs)-1].after, segments: segs, clusters: w.clusters,
		apiRTT: rtt, apiRTTFails: fails, critical: critical, criticalN: criticalN}, nil
}

// segmentLength is how long a segment's arrivals last. The stream comes
// in segments, each drained (every database Ready) before the next, so
// that the operator's metrics can be read per segment and a segment a
// periodic resync fell in left out of the per-database passes and queue
// wait (streampasses.go); the latencies keep every segment, the resync's
// too, since it fell in both streams' windows alike.
const segmentLength = 20 * time.Second

// streamSegment sends count databases to each side from index first,
// interleaved, at rate per side, and waits until they are all Ready; it
// returns the operator's metrics around it.
func (b *bench) streamSegment(ctx context.Context, op *operatorProc, ops, lbs *streamSide, first, count int, rate float64,
	errs chan error, wg *sync.WaitGroup) (segment, error) {
	before, err := op.scrape()
	if err != nil {
		return segment{}, fmt.Errorf("stream: %w", err)
	}
	// Twice the rate: each side gets every other tick, so each keeps rate.
	tick := time.NewTicker(time.Duration(float64(time.Second) / (2 * rate)))
	defer tick.Stop()
	for k := range 2 * count {
		select {
		case <-ctx.Done():
			return segment{}, ctx.Err()
		case <-tick.C:
		}
		side := ops
		if k%2 == 1 {
			side = lbs
		}
		// Each arrival in its own goroutine: a slow create must not delay
		// the next arrival, or the rate would bend to the API server.
		wg.Go(func() {
			if err := side.arrive(ctx, first+k/2); err != nil {
				errs <- err
			}
		})
	}
	timeout := time.After(3 * time.Minute)
	for _, s := range []*streamSide{ops, lbs} {
		for {
			got, phases := s.track.progress()
			if got >= first+count {
				break
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case err := <-errs:
				return segment{}, fmt.Errorf("latency phase: %w", err)
			case <-ctx.Done():
				return segment{}, ctx.Err()
			case <-op.done:
				return segment{}, fmt.Errorf("operator exited during the latency phase; log %s:\n%s", op.logPath, tail(op.logPath, 30))
			case <-timeout:
				return segment{}, fmt.Errorf("latency phase, %s: %d/%d Ready 3 minutes after the segment's last create, others by phase %v",
					s.w.ns, got, first+count, phases)
			}
		}
	}
	after, err := settle(ctx, op)
	if err != nil {
		return segment{}, fmt.Errorf("stream: %w", err)
	}
	return segment{n: count, before: before, after: after}, nil
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
	floorFigures(fig, r)
	passFigures(fig, r)
	if r.critical != nil {
		criticalPassFigures(fig, r.critical, r.criticalN)
	}
	fig["mark_api_round_trip_p50_s"] = pct(r.apiRTT, 0.50)
	fig["mark_api_round_trip_p99_s"] = pct(r.apiRTT, 0.99)
	fig["mark_api_round_trip_failures"] = float64(r.apiRTTFails)
	rt := diffHistogram(r.before.histogram("setpoint_api_request_duration_seconds"), r.after.histogram("setpoint_api_request_duration_seconds"))
	fig["stream_op_api_request_p50_s"] = quantile(0.50, rt)
}
