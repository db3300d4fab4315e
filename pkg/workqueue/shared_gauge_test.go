package workqueue

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// Two queues of one name (one per watched namespace) set the gauges in
// turn; the series shows their sum (unfinished work) and their largest
// (longest running processor), whichever set last.
func TestQueuesOfOneNameShareTheSetGauges(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	p := provider{m}
	ua, ub := p.NewUnfinishedWorkSecondsMetric("postgrescluster"), p.NewUnfinishedWorkSecondsMetric("postgrescluster")
	la, lb := p.NewLongestRunningProcessorSecondsMetric("postgrescluster"), p.NewLongestRunningProcessorSecondsMetric("postgrescluster")
	other := p.NewUnfinishedWorkSecondsMetric("postgresdatabase")
	ua.Set(3)
	ub.Set(2)
	la.Set(5)
	lb.Set(1)
	other.Set(7)
	if got := testutil.ToFloat64(m.unfinished.WithLabelValues("postgrescluster")); got != 5 {
		t.Errorf("unfinished work = %v, want 3+2", got)
	}
	if got := testutil.ToFloat64(m.longestRunning.WithLabelValues("postgrescluster")); got != 5 {
		t.Errorf("longest running = %v, want max(5, 1)", got)
	}
	ua.Set(0)
	if got := testutil.ToFloat64(m.unfinished.WithLabelValues("postgrescluster")); got != 2 {
		t.Errorf("unfinished work = %v after one queue finished, want 2", got)
	}
	if got := testutil.ToFloat64(m.unfinished.WithLabelValues("postgresdatabase")); got != 7 {
		t.Errorf("another queue name = %v, want its own 7", got)
	}
}
