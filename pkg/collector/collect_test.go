package collector

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	pglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
)

// fixture is a collector over an in-memory cluster cache whose samples
// come from script instead of Postgres.
type fixture struct {
	c       *Collector
	indexer cache.Indexer
	mu      sync.Mutex
	next    map[types.NamespacedName]Sample
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	f := &fixture{indexer: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}), next: map[types.NamespacedName]Sample{}}
	f.c = &Collector{
		opts:     opts.withDefaults(),
		deps:     Deps{Metrics: NewMetrics(prometheus.NewRegistry())},
		clusters: pglisters.NewPostgresClusterLister(f.indexer),
		queue:    workqueue.NewTypedDelayingQueue[types.NamespacedName](),
		now:      time.Now,
		samples:  map[types.NamespacedName]Sample{},
	}
	f.c.take = func(_ context.Context, pc *pgv1.PostgresCluster) Sample {
		f.mu.Lock()
		defer f.mu.Unlock()
		s := f.next[keyOf(pc)]
		s.At = time.Now()
		return s
	}
	return f
}

func (f *fixture) set(pc *pgv1.PostgresCluster, s Sample) {
	f.mu.Lock()
	f.next[keyOf(pc)] = s
	f.mu.Unlock()
}

func readyCluster(name string, recorded *pgv1.PostgresHealth, conds ...metav1.Condition) *pgv1.PostgresCluster {
	return &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Status:     pgv1.PostgresClusterStatus{Phase: pgv1.PhaseReady, Postgres: recorded, Conditions: conds},
	}
}

func recordedAt(frac float64) *pgv1.PostgresHealth {
	s := used(frac)
	return &pgv1.PostgresHealth{UsedBytes: s.UsedBytes(), SizeBytes: s.SizeBytes, AcceptsWrites: true}
}

func TestCollectWakesOnlyOnEdges(t *testing.T) {
	f := newFixture(t, Options{NearlyFull: 0.9})
	pc := readyCluster("shop", recordedAt(0.42))
	_ = f.indexer.Add(pc)
	script := []struct {
		name string
		s    Sample
		wake bool
	}{
		{"first sample agrees with status", used(0.43), false},
		{"steady", used(0.44), false},
		{"steady", used(0.41), false},
		{"primary stops", Sample{Err: "connection refused"}, true},
		{"still stopped", Sample{Err: "connection refused"}, false},
		{"recovered", used(0.44), true},
		{"steady", used(0.45), false},
		{"read-only", func() Sample { s := used(0.45); s.AcceptsWrites = false; return s }(), true},
		{"writable again", used(0.45), true},
		{"nearly full", used(0.92), true},
		{"still nearly full", used(0.91), false},
	}
	for i, step := range script {
		f.set(pc, step.s)
		if got := f.c.collect(t.Context(), pc); got != step.wake {
			t.Fatalf("step %d (%s): wake = %v, want %v", i, step.name, got, step.wake)
		}
	}
	if got := testutil.ToFloat64(f.c.deps.Metrics.edges); got != 5 {
		t.Errorf("setpoint_collector_edges_total = %v, want 5", got)
	}
}

func TestFirstSampleWakesWhenStatusDiffers(t *testing.T) {
	unreachable := metav1.Condition{Type: pgv1.ConditionPostgresUnreachable, Status: metav1.ConditionTrue}
	readOnly := metav1.Condition{Type: pgv1.ConditionNotAcceptingWrites, Status: metav1.ConditionTrue}
	ro := used(0.42)
	ro.AcceptsWrites = false
	for _, c := range []struct {
		name string
		pc   *pgv1.PostgresCluster
		s    Sample
		wake bool
	}{
		{"nothing recorded yet", readyCluster("a", nil), used(0.42), true},
		{"nothing recorded, unreachable", readyCluster("b", nil), Sample{Err: "refused"}, true},
		{"status says unreachable, it answers", readyCluster("c", recordedAt(0.42), unreachable), used(0.42), true},
		{"status says read-only, still is", readyCluster("d", recordedAt(0.42), readOnly), ro, false},
		{"status says unreachable, still is", readyCluster("e", recordedAt(0.42), unreachable), Sample{Err: "refused"}, false},
		{"usage moved a band since", readyCluster("f", recordedAt(0.42)), used(0.55), true},
	} {
		f := newFixture(t, Options{})
		_ = f.indexer.Add(c.pc)
		f.set(c.pc, c.s)
		if got := f.c.collect(t.Context(), c.pc); got != c.wake {
			t.Errorf("%s: wake = %v, want %v", c.name, got, c.wake)
		}
	}
}

func TestDeletedClusterIsDropped(t *testing.T) {
	f := newFixture(t, Options{})
	pc := readyCluster("gone", nil)
	_ = f.indexer.Add(pc)
	f.set(pc, used(0.3))
	f.c.collect(t.Context(), pc)
	if _, ok := f.c.Sample(keyOf(pc)); !ok {
		t.Fatal("no sample kept")
	}
	if n := testutil.CollectAndCount(f.c.deps.Metrics.gauges[gaugeUsed]); n != 1 {
		t.Fatalf("used_bytes series = %d, want 1", n)
	}
	_ = f.indexer.Delete(pc)
	f.c.handler().OnDelete(pc)
	if _, ok := f.c.Sample(keyOf(pc)); ok {
		t.Error("sample of a deleted cluster kept")
	}
	if n := testutil.CollectAndCount(f.c.deps.Metrics.gauges[gaugeUsed]); n != 0 {
		t.Errorf("used_bytes series of a deleted cluster = %d, want 0", n)
	}
	// A sample that finishes after the deletion keeps nothing either.
	if f.c.collect(t.Context(), pc) {
		t.Error("a sample of a deleted cluster woke it")
	}
	if _, ok := f.c.Sample(keyOf(pc)); ok {
		t.Error("a sample finishing after the deletion was kept")
	}
}

func TestNotReadyClusterIsNotSampled(t *testing.T) {
	f := newFixture(t, Options{})
	pc := readyCluster("new", nil)
	pc.Status.Phase = pgv1.PhaseProvisioning
	if f.c.eligible(pc) {
		t.Fatal("a cluster never Ready is eligible")
	}
	pc.Status.Phase = pgv1.PhaseReady
	if !f.c.eligible(pc) {
		t.Fatal("a Ready cluster is not eligible")
	}
	f.set(pc, used(0.1))
	_ = f.indexer.Add(pc)
	f.c.collect(t.Context(), pc)
	pc.Status.Phase = pgv1.PhasePending // CNPG failing over: keep sampling
	if !f.c.eligible(pc) {
		t.Error("a sampled cluster stopped being eligible when it left Ready")
	}
	pc.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	if f.c.eligible(pc) {
		t.Error("a deleting cluster is eligible")
	}
}

// TestRunSamplesEachClusterOneAtATime runs the workers on a short
// interval: every cluster is sampled again and again, never twice at
// once, and steady samples wake nobody.
func TestRunSamplesEachClusterOneAtATime(t *testing.T) {
	f := newFixture(t, Options{Interval: 20 * time.Millisecond, Workers: 3})
	var inFlight sync.Map
	var overlap, taken atomic.Int32
	take := f.c.take
	f.c.take = func(ctx context.Context, pc *pgv1.PostgresCluster) Sample {
		if _, busy := inFlight.LoadOrStore(keyOf(pc), true); busy {
			overlap.Add(1)
		}
		defer inFlight.Delete(keyOf(pc))
		time.Sleep(5 * time.Millisecond)
		taken.Add(1)
		return take(ctx, pc)
	}
	names := []string{"a", "b", "c", "d", "e"}
	for _, n := range names {
		pc := readyCluster(n, recordedAt(0.2))
		_ = f.indexer.Add(pc)
		f.set(pc, used(0.2))
		f.c.handler().OnAdd(pc, false)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var woken atomic.Int32
	done := make(chan struct{})
	go func() {
		f.c.Run(ctx, func(types.NamespacedName) { woken.Add(1) })
		close(done)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for taken.Load() < int32(4*len(names)) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if taken.Load() < int32(4*len(names)) {
		t.Fatalf("only %d samples taken", taken.Load())
	}
	if overlap.Load() != 0 {
		t.Errorf("%d samples of a cluster overlapped", overlap.Load())
	}
	if woken.Load() != 0 {
		t.Errorf("steady clusters were woken %d times", woken.Load())
	}
	if _, ok := f.c.Sample(types.NamespacedName{Namespace: "ns", Name: "a"}); ok {
		t.Error("samples kept after the collector stopped (leadership lost)")
	}
	if n := testutil.CollectAndCount(f.c.deps.Metrics.gauges[gaugeUsed]); n != 0 {
		t.Errorf("%d used_bytes series exported after the collector stopped", n)
	}
}
