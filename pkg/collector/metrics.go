package collector

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/statemetrics"
)

// Metrics are the collector's: per-cluster gauges of what Postgres
// reports, so a platform team can alert without a second exporter, and
// the collector's own cost. Create them once per process: a collector
// is made anew each time the operator starts leading.
type Metrics struct {
	gauges map[string]*prometheus.GaugeVec

	samples    *prometheus.CounterVec
	duration   prometheus.Histogram
	inFlight   prometheus.Gauge
	edges      prometheus.Counter
	conns      *prometheus.CounterVec
	statements prometheus.Counter
}

// The per-cluster gauges, setpoint_postgres_<name>{namespace,postgrescluster}.
const (
	gaugeUsed       = "used_bytes"
	gaugeDatabases  = "database_bytes"
	gaugeWAL        = "wal_bytes"
	gaugeSize       = "storage_size_bytes"
	gaugeWrites     = "accepts_writes"
	gaugeConns      = "connections_in_use"
	gaugeMaxConns   = "max_connections"
	gaugeLag        = "replication_lag_bytes"
	gaugeSampleTime = "sample_timestamp_seconds"
	gaugeReplayed   = "last_replay_timestamp_seconds"
	gaugeReceiver   = "wal_receiver_streaming"
	gaugeFailing    = "sample_failing"
)

var gaugeHelp = map[string]string{
	gaugeUsed:       "Bytes the primary's data takes: databases plus WAL.",
	gaugeDatabases:  "Sum of pg_database_size over every database.",
	gaugeWAL:        "Size of pg_wal.",
	gaugeSize:       "Size of the data volume (the CNPG Cluster's storage.size); absent when unknown.",
	gaugeWrites:     "1 when the primary accepts writes (out of recovery, not read-only), else 0.",
	gaugeConns:      "Client connections in use on the primary.",
	gaugeMaxConns:   "The primary's max_connections.",
	gaugeLag:        "Largest replay lag of a standby in bytes; absent without standbys.",
	gaugeReceiver:   "On a server in recovery (a replica cluster): 1 while its WAL receiver streams from the source's primary, else 0 (the archive alone); absent on a primary.",
	gaugeSampleTime: "Unix time of the last successful sample; time() minus it is the sample's age.",
	gaugeReplayed:   "Commit time (Unix) of the last transaction a replica cluster replayed from its source; absent on a primary. Its lag behind the source's commits is the replay lag while the source writes.",
	gaugeFailing:    "1 when the last sample failed (Postgres unreachable or the query failed), else 0.",
}

// NewMetrics registers the collector's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		gauges: map[string]*prometheus.GaugeVec{},
		samples: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "setpoint_collector_samples_total", Help: "Samples the Postgres health collector took, by result (ok, error).",
		}, []string{"result"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "setpoint_collector_sample_duration_seconds", Help: "How long one sample took: connection and statement.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14), // 1ms … ~8s
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "setpoint_collector_in_flight", Help: "Samples in progress (at most the collector's workers).",
		}),
		edges: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "setpoint_collector_edges_total", Help: "Samples that crossed an edge and woke their cluster's pass.",
		}),
		conns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "setpoint_collector_connections_total", Help: "Connections the collector opened to Postgres, by result.",
		}, []string{"result"}),
		statements: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "setpoint_collector_statements_total", Help: "SQL statements the collector sent to Postgres.",
		}),
	}
	reg.MustRegister(m.samples, m.duration, m.inFlight, m.edges, m.conns, m.statements)
	for name, help := range gaugeHelp {
		m.gauges[name] = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "setpoint_postgres_" + name, Help: help,
		}, statemetrics.ClusterLabels)
		reg.MustRegister(m.gauges[name])
	}
	return m
}

func (m *Metrics) connected(err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.conns.WithLabelValues(result).Inc()
}

// observe exports s. A failed sample keeps the last figures (the sample
// time says how old they are) and sets sample_failing.
func (m *Metrics) observe(key types.NamespacedName, s Sample) {
	set := func(name string, v float64) { m.gauges[name].WithLabelValues(key.Namespace, key.Name).Set(v) }
	if s.Failed() {
		set(gaugeFailing, 1)
		return
	}
	set(gaugeFailing, 0)
	set(gaugeUsed, float64(s.UsedBytes()))
	set(gaugeDatabases, float64(s.DatabaseBytes))
	set(gaugeWAL, float64(s.WALBytes))
	set(gaugeWrites, float64(b2i(s.AcceptsWrites)))
	set(gaugeConns, float64(s.Connections))
	set(gaugeMaxConns, float64(s.MaxConnections))
	set(gaugeSampleTime, float64(s.At.UnixMilli())/1000)
	m.optional(gaugeSize, key, s.SizeBytes, s.SizeBytes > 0)
	lag := s.ReplicationLagBytes
	m.optional(gaugeLag, key, deref(lag), lag != nil)
	if s.LastReplayed != nil {
		set(gaugeReplayed, float64(s.LastReplayed.UnixMilli())/1000)
	} else {
		m.gauges[gaugeReplayed].DeleteLabelValues(key.Namespace, key.Name)
	}
	m.optional(gaugeReceiver, key, int64(b2i(s.Streaming)), s.InRecovery)
}

// optional sets a gauge that exists only when its value is known.
func (m *Metrics) optional(name string, key types.NamespacedName, v int64, known bool) {
	if known {
		m.gauges[name].WithLabelValues(key.Namespace, key.Name).Set(float64(v))
		return
	}
	m.gauges[name].DeleteLabelValues(key.Namespace, key.Name)
}

// forget removes a cluster's gauges.
func (m *Metrics) forget(key types.NamespacedName) {
	for _, g := range m.gauges {
		g.DeleteLabelValues(key.Namespace, key.Name)
	}
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
