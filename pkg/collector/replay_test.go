package collector

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"
)

// A replica cluster's sample exports the commit time it last replayed and
// whether it streams; a primary's (the same cluster once promoted) removes
// both series, so no stale replay figure outlives the replica.
func TestReplayTimeFollowsTheReplica(t *testing.T) {
	t.Parallel()
	m := NewMetrics(prometheus.NewRegistry())
	key := types.NamespacedName{Namespace: "site-b", Name: "shop-b"}
	replayed := time.Date(2026, 12, 8, 1, 2, 3, 500_000_000, time.UTC)
	m.observe(key, Sample{At: replayed.Add(time.Minute), InRecovery: true, LastReplayed: &replayed, Streaming: true})
	g := m.gauges[gaugeReplayed].WithLabelValues(key.Namespace, key.Name)
	if got, want := testutil.ToFloat64(g), float64(replayed.UnixMilli())/1000; got != want {
		t.Errorf("%s = %v, want %v", gaugeReplayed, got, want)
	}
	if got := testutil.ToFloat64(m.gauges[gaugeReceiver].WithLabelValues(key.Namespace, key.Name)); got != 1 {
		t.Errorf("%s = %v while streaming, want 1", gaugeReceiver, got)
	}
	m.observe(key, Sample{At: replayed.Add(90 * time.Second), InRecovery: true, LastReplayed: &replayed})
	if got := testutil.ToFloat64(m.gauges[gaugeReceiver].WithLabelValues(key.Namespace, key.Name)); got != 0 {
		t.Errorf("%s = %v from the archive alone, want 0", gaugeReceiver, got)
	}
	m.observe(key, Sample{At: replayed.Add(2 * time.Minute), AcceptsWrites: true})
	for _, name := range []string{gaugeReplayed, gaugeReceiver} {
		if n := testutil.CollectAndCount(m.gauges[name]); n != 0 {
			t.Errorf("a primary's sample left %d %s series", n, name)
		}
	}
}
