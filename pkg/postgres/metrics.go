package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics count what the operator's pipelines ask of Postgres: the
// idle-cost figure (no SQL on a resync of converged objects) is read from
// them. Named setpoint_pipeline_*, not setpoint_postgres_*: that prefix is
// the gauges of what Postgres itself reports (pkg/collector).
type Metrics struct {
	connections *prometheus.CounterVec
	statements  prometheus.Counter
}

// NewMetrics registers the Postgres metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		connections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "setpoint_pipeline_connections_total",
			Help: "Connections the operator's pipelines opened to Postgres, by result (the collector's are setpoint_collector_connections_total).",
		}, []string{"result"}),
		statements: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "setpoint_pipeline_statements_total",
			Help: "SQL statements the operator's pipelines sent to Postgres (the collector's are setpoint_collector_statements_total).",
		}),
	}
	reg.MustRegister(m.connections, m.statements)
	return m
}

func (m *Metrics) connected(err error) {
	if m == nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.connections.WithLabelValues(result).Inc()
}

// tracer counts statements through pgx's query tracing hook.
type tracer struct{ m *Metrics }

func (t tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	t.m.statements.Inc()
	return ctx
}

func (tracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
