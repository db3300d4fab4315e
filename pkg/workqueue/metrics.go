package workqueue

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

// Metrics are the Prometheus metrics of every queue sharing a registry:
// client-go's queue metrics (depth, adds, latency, work duration, retries,
// unfinished work, longest running processor) labelled by queue name, plus
// pass outcomes and the rechecks passes ask for.
type Metrics struct {
	depth          *prometheus.GaugeVec
	adds           *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	workDuration   *prometheus.HistogramVec
	unfinished     *prometheus.GaugeVec
	longestRunning *prometheus.GaugeVec
	retries        *prometheus.CounterVec
	outcomes       *prometheus.CounterVec
	rechecks       *prometheus.HistogramVec

	// The gauges client-go sets (rather than moves up and down), shared
	// by the queues of one name.
	unfinishedShares, longestShares *sharedGauges
}

// NewMetrics creates the metrics and registers them with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	buckets := prometheus.ExponentialBuckets(0.0005, 2, 16) // 0.5ms … ~16s
	m := &Metrics{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "workqueue_depth", Help: "Current depth of the workqueue.",
		}, []string{"name"}),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "workqueue_adds_total", Help: "Total number of adds handled by the workqueue.",
		}, []string{"name"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "workqueue_queue_duration_seconds", Help: "How long a key waits in the queue before a worker takes it.",
			Buckets: buckets,
		}, []string{"name"}),
		workDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "workqueue_work_duration_seconds", Help: "How long processing a key takes.",
			Buckets: buckets,
		}, []string{"name"}),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "workqueue_unfinished_work_seconds", Help: "Seconds of work in progress not yet observed by work_duration.",
		}, []string{"name"}),
		longestRunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "workqueue_longest_running_processor_seconds", Help: "Seconds the longest running processor has been running.",
		}, []string{"name"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "workqueue_retries_total", Help: "Total number of rate-limited retries handled by the workqueue.",
		}, []string{"name"}),
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "setpoint_reconcile_total", Help: "Reconcile passes by queue and outcome: success, wait, retry, terminal, failed or panic.",
		}, []string{"name", "outcome"}),
		// How soon a pass asks to look again shows whether the operator
		// polls: a wait nothing announces rechecks in seconds, a settled
		// or failed object in minutes.
		rechecks: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "setpoint_reconcile_recheck_seconds",
			Help:    "The recheck delay a pass asked for, by queue and outcome (wait or failed).",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1800},
		}, []string{"name", "outcome"}),
	}
	reg.MustRegister(m.depth, m.adds, m.latency, m.workDuration, m.unfinished, m.longestRunning, m.retries, m.outcomes, m.rechecks)
	m.unfinishedShares = newSharedGauges(m.unfinished, sum)
	m.longestShares = newSharedGauges(m.longestRunning, largest)
	return m
}

// provider adapts Metrics to client-go's workqueue.MetricsProvider.
type provider struct{ m *Metrics }

var _ workqueue.MetricsProvider = provider{}

func (p provider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return p.m.depth.WithLabelValues(name)
}
func (p provider) NewAddsMetric(name string) workqueue.CounterMetric {
	return p.m.adds.WithLabelValues(name)
}
func (p provider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return p.m.latency.WithLabelValues(name)
}
func (p provider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return p.m.workDuration.WithLabelValues(name)
}
func (p provider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.m.unfinishedShares.member(name)
}
func (p provider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.m.longestShares.member(name)
}
func (p provider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return p.m.retries.WithLabelValues(name)
}
