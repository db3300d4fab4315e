package workqueue

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// sharedGauge is one series that several queues of the same name set: a
// namespace-scoped operator runs one queue of each kind per watched
// namespace, all under the kind's name. client-go sets the unfinished-work
// and longest-running gauges from each queue in turn, so the series shows
// what they add up to (unfinished work) or the largest (the longest
// running processor), not whichever queue set it last.
type sharedGauge struct {
	mu      sync.Mutex
	gauge   prometheus.Gauge
	combine func(a, b float64) float64
	values  []float64 // one per queue
}

// member is one queue's handle on the shared series.
type member struct {
	g *sharedGauge
	i int
}

func (g *sharedGauge) join() member {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.values = append(g.values, 0)
	return member{g: g, i: len(g.values) - 1}
}

func (m member) Set(v float64) {
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	g.values[m.i] = v
	total := g.values[0]
	for _, x := range g.values[1:] {
		total = g.combine(total, x)
	}
	g.gauge.Set(total)
}

func sum(a, b float64) float64 { return a + b }

func largest(a, b float64) float64 { return max(a, b) }

// sharedGauges hands out the shared series of one gauge vector by queue
// name.
type sharedGauges struct {
	mu      sync.Mutex
	vec     *prometheus.GaugeVec
	combine func(a, b float64) float64
	byName  map[string]*sharedGauge
}

func newSharedGauges(vec *prometheus.GaugeVec, combine func(a, b float64) float64) *sharedGauges {
	return &sharedGauges{vec: vec, combine: combine, byName: map[string]*sharedGauge{}}
}

func (s *sharedGauges) member(name string) member {
	s.mu.Lock()
	g := s.byName[name]
	if g == nil {
		g = &sharedGauge{gauge: s.vec.WithLabelValues(name), combine: s.combine}
		s.byName[name] = g
	}
	s.mu.Unlock()
	return g.join()
}
