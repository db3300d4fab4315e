package leaderelection

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/leaderelection"
)

// Metrics say whether this replica leads, through client-go's own
// leader-election hooks (leaderelection.SetProvider): without them a
// "no leader" alert has nothing to read but the Lease.
type Metrics struct {
	leading  *prometheus.GaugeVec
	slowpath *prometheus.CounterVec
}

// NewMetrics registers the leader-election metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		leading: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "setpoint_leader_election_leading",
			Help: "1 while this replica holds the leader Lease named by lease, 0 otherwise (absent without --leader-elect). The sum over the replicas is the number of leaders: 0 for longer than the lease duration means no replica reconciles.",
		}, []string{"lease"}),
		slowpath: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "setpoint_leader_election_slowpath_total",
			Help: "Lease renewals that had to read the Lease again before updating it (another writer changed it, or the cached copy was stale), by lease.",
		}, []string{"lease"}),
	}
	reg.MustRegister(m.leading, m.slowpath)
	return m
}

// provideOnce: client-go keeps one provider per process, set before the
// first elector is made; later calls are ignored by client-go too. A
// process runs one operator, so one Metrics.
var (
	provideOnce sync.Once
	provided    *Metrics
)

// Provide makes m client-go's leader-election metrics provider. Call it
// before New.
func (m *Metrics) Provide() {
	provideOnce.Do(func() {
		provided = m
		leaderelection.SetProvider(m)
	})
}

// released says the Lease name was given back. client-go turns its
// metric off only when a renewal fails, not when the elector releases
// the Lease on a stop, so a stopped leader would still read 1.
func released(name string) {
	if provided != nil {
		provided.leading.WithLabelValues(name).Set(0)
	}
}

// NewLeaderMetric implements leaderelection.MetricsProvider.
func (m *Metrics) NewLeaderMetric() leaderelection.LeaderMetric { return leaderMetric{m} }

type leaderMetric struct{ m *Metrics }

func (l leaderMetric) On(name string)  { l.m.leading.WithLabelValues(name).Set(1) }
func (l leaderMetric) Off(name string) { l.m.leading.WithLabelValues(name).Set(0) }
func (l leaderMetric) SlowpathExercised(name string) {
	l.m.slowpath.WithLabelValues(name).Inc()
}
