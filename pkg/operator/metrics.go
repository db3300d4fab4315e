package operator

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/leaderelection"
	"github.com/setpoint-dev/setpoint/pkg/memory"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/pkg/statemetrics"
	"github.com/setpoint-dev/setpoint/pkg/version"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// operatorMetrics are every metric /metrics serves, registered in one
// place (docs/reference/metrics.md is generated from it).
type operatorMetrics struct {
	queues    *workqueue.Metrics
	postgres  *postgres.Metrics
	collector *collector.Metrics
	backups   *controller.BackupMetrics
	api       *apiRequests
	leader    *leaderelection.Metrics
	state     *statemetrics.Metrics
	selected  prometheus.Gauge
	returner  *memory.Returner // nil with --memory-return-period=0
}

func newOperatorMetrics(reg prometheus.Registerer, cfg Config) operatorMetrics {
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		newBuildInfo(version.Get()))
	m := operatorMetrics{
		queues:    workqueue.NewMetrics(reg),
		postgres:  postgres.NewMetrics(reg),
		collector: collector.NewMetrics(reg),
		backups:   controller.NewBackupMetrics(reg),
		api:       newAPIRequests(reg),
		leader:    leaderelection.NewMetrics(reg),
		state:     statemetrics.New(reg),
		selected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "setpoint_selected_namespaces",
			Help: "Namespaces --watch-namespace-selector selects whose informers and controllers run now (0 without the flag): a namespace counts from its label until, after the label is removed, its workers have stopped.",
		}),
	}
	reg.MustRegister(m.selected)
	if cfg.MemoryReturn > 0 {
		m.returner = memory.NewReturner(cfg.MemoryReturn, reg)
	}
	return m
}
