package collector

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	pglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
)

// hookedLister calls onGet each time the collector looks a cluster up,
// after the lookup: the test acts exactly between the collector's check
// that a cluster is there and whatever the collector does next.
type hookedLister struct {
	pglisters.PostgresClusterLister
	onGet func(name string)
}

func (l hookedLister) PostgresClusters(ns string) pglisters.PostgresClusterNamespaceLister {
	return hookedNamespaceLister{l.PostgresClusterLister.PostgresClusters(ns), l.onGet}
}

type hookedNamespaceLister struct {
	pglisters.PostgresClusterNamespaceLister
	onGet func(name string)
}

func (l hookedNamespaceLister) Get(name string) (*pgv1.PostgresCluster, error) {
	pc, err := l.PostgresClusterNamespaceLister.Get(name)
	l.onGet(name)
	return pc, err
}

// deleteCluster does what the informer does on a deletion: the cache
// drops the cluster first, then the handler hears of it.
func (f *fixture) deleteCluster(pc *pgv1.PostgresCluster) {
	_ = f.indexer.Delete(pc)
	f.c.handler().OnDelete(pc)
}

// held fails t if the collector holds a sample or exports any gauge
// series of key.
func (f *fixture) held(t *testing.T, key types.NamespacedName) {
	t.Helper()
	if _, ok := f.c.Sample(key); ok {
		t.Errorf("a sample of deleted %s is kept", key)
	}
	for name, g := range f.c.deps.Metrics.gauges {
		if n := testutil.CollectAndCount(g); n != 0 {
			t.Errorf("setpoint_postgres_%s has %d series after %s was deleted", name, n, key)
		}
	}
}

// TestDeletionRightAfterTheCheckLeavesNothing is the interleaving that
// used to leave a sample and its gauges behind: the cluster is deleted
// just after the collector saw it still there, before the sample is
// stored. The informer's handler (forget) runs at once when it can (the
// check does not hold the lock), else concurrently as it does for real;
// either way, nothing of the cluster remains.
func TestDeletionRightAfterTheCheckLeavesNothing(t *testing.T) {
	f := newFixture(t, Options{})
	pc := readyCluster("gone", nil)
	pc.UID = "uid-1"
	_ = f.indexer.Add(pc)
	f.set(pc, used(0.3))
	var forgotten sync.WaitGroup
	lister := f.c.clusters
	f.c.clusters = hookedLister{lister, func(string) {
		f.c.clusters = lister // once
		_ = f.indexer.Delete(pc)
		if f.c.mu.TryLock() {
			// The check ran outside the lock: the handler gets in
			// before the store, the interleaving that used to leak.
			f.c.mu.Unlock()
			f.c.handler().OnDelete(pc)
			return
		}
		// The check runs under the lock: the handler waits for it.
		forgotten.Go(func() { f.c.handler().OnDelete(pc) })
	}}
	f.c.collect(t.Context(), pc)
	forgotten.Wait()
	f.held(t, keyOf(pc))
}

// TestDeletionWhileSamplingLeavesNothing: the deletion, handler
// included, completes while the round trip is in flight.
func TestDeletionWhileSamplingLeavesNothing(t *testing.T) {
	f := newFixture(t, Options{})
	pc := readyCluster("gone", nil)
	pc.UID = "uid-1"
	_ = f.indexer.Add(pc)
	f.set(pc, used(0.3))
	f.c.collect(t.Context(), pc) // a previous sample, exported
	take := f.c.take
	f.c.take = func(ctx context.Context, pc *pgv1.PostgresCluster) Sample {
		f.deleteCluster(pc)
		return take(ctx, pc)
	}
	if f.c.collect(t.Context(), pc) {
		t.Error("a sample of a deleted cluster woke it")
	}
	f.held(t, keyOf(pc))
}

// TestRecreatedClusterGetsNoSampleOfItsPredecessor: a cluster deleted
// and created again under its name while its sample was in flight; the
// sample was of the old one, and is not the new one's.
func TestRecreatedClusterGetsNoSampleOfItsPredecessor(t *testing.T) {
	f := newFixture(t, Options{})
	old := readyCluster("shop", nil)
	old.UID = "uid-old"
	_ = f.indexer.Add(old)
	f.set(old, used(0.3))
	renewed := readyCluster("shop", nil)
	renewed.UID = "uid-new"
	take := f.c.take
	f.c.take = func(ctx context.Context, pc *pgv1.PostgresCluster) Sample {
		f.deleteCluster(old)
		_ = f.indexer.Add(renewed)
		return take(ctx, pc)
	}
	f.c.collect(t.Context(), old)
	if _, ok := f.c.Sample(keyOf(old)); ok {
		t.Fatal("the old cluster's sample is kept for the new one")
	}
	f.c.take = take
	if !f.c.collect(t.Context(), renewed) {
		t.Error("the new cluster's first sample did not wake it (status has none)")
	}
}

// TestDeletionRacingSamplesLeavesNothing runs a sample and a deletion
// concurrently many times (with -race, it also checks the locking):
// however they interleave, once both are done nothing is left.
func TestDeletionRacingSamplesLeavesNothing(t *testing.T) {
	f := newFixture(t, Options{})
	for i := range 200 {
		pc := readyCluster(fmt.Sprintf("c%d", i), nil)
		pc.UID = types.UID(pc.Name)
		_ = f.indexer.Add(pc)
		f.set(pc, used(0.3))
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { <-start; f.c.collect(t.Context(), pc) })
		wg.Go(func() { <-start; f.deleteCluster(pc) })
		close(start)
		wg.Wait()
		f.held(t, keyOf(pc))
		if t.Failed() {
			t.Fatalf("iteration %d", i)
		}
	}
}
