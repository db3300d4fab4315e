package collector

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// TestStopMidSampleKeepsAndWakesNothing: leadership is lost while a
// sample is in flight. The round trip fails because its context ended,
// which says nothing of Postgres: it crosses no edge, wakes nobody, and
// the clusters still queued are not sampled at all.
func TestStopMidSampleKeepsAndWakesNothing(t *testing.T) {
	f := newFixture(t, Options{Workers: 1})
	for _, n := range []string{"a", "b", "c"} {
		pc := readyCluster(n, recordedAt(0.2))
		_ = f.indexer.Add(pc)
		f.set(pc, used(0.2))
		f.c.handler().OnAdd(pc, false)
	}
	ctx, cancel := context.WithCancel(t.Context())
	inFlight := make(chan struct{})
	var taken int
	f.c.take = func(ctx context.Context, _ *pgv1.PostgresCluster) Sample {
		taken++ // one worker: no concurrent access
		close(inFlight)
		<-ctx.Done()
		return Sample{Err: ctx.Err().Error()}
	}
	var woken []types.NamespacedName
	done := make(chan struct{})
	go func() {
		f.c.Run(ctx, func(k types.NamespacedName) { woken = append(woken, k) })
		close(done)
	}()
	<-inFlight
	cancel()
	<-done
	if taken != 1 {
		t.Errorf("%d samples taken, want only the one in flight when the collector stopped", taken)
	}
	if len(woken) != 0 {
		t.Errorf("a sample cut short woke %v", woken)
	}
	if n := testutil.ToFloat64(f.c.deps.Metrics.edges); n != 0 {
		t.Errorf("a sample cut short counted %v edges", n)
	}
	for name, g := range f.c.deps.Metrics.gauges {
		if n := testutil.CollectAndCount(g); n != 0 {
			t.Errorf("setpoint_postgres_%s has %d series after the collector stopped", name, n)
		}
	}
}
