package controller

import (
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgca"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Config are the collaborators a controller is built with; both
// controllers take the same.
type Config struct {
	Kube            kubernetes.Interface
	PG              versioned.Interface
	Recorder        record.EventRecorder
	Connector       *postgres.Connector
	PostgresTimeout time.Duration
	Metrics         *workqueue.Metrics
	// CAs caches CNPG's CA certificates; nil gives the controller its own.
	CAs *cnpgca.CACache
	// Samples are the Postgres health collector's last samples, read by
	// the cluster pass at the top; nil records no health.
	Samples collector.Reader
	// ClassesReadOnly: the operator watches only some namespaces
	// (--watch-namespaces), so it cannot know every PostgresCluster of a
	// class; it never writes classes (no class-in-use finalizer), which
	// other installs watching other namespaces share.
	ClassesReadOnly bool
	// Clock tells the time of rotation records, status deferrals and
	// held-back CNPG status; nil is the real clock. Tests pass a fake
	// one, each to its own controller, so they can run in parallel.
	Clock clock.PassiveClock
	// BackupMetrics are the per-cluster backup gauges; nil exports none.
	BackupMetrics *BackupMetrics
	// ClientCAGrace is how long a replaced client CA stays trusted after
	// every certificate it signed was re-issued; 0 is DefaultClientCAGrace.
	ClientCAGrace time.Duration
}

// DefaultClientCAGrace leaves clients that read their certificate file
// only now and then (a connection pool at start, a sidecar's sync) an
// hour to pick up the re-issued one.
const DefaultClientCAGrace = time.Hour

// ClientCAGraceOrDefault is ClientCAGrace, or its default.
func (cfg Config) ClientCAGraceOrDefault() time.Duration {
	if cfg.ClientCAGrace <= 0 {
		return DefaultClientCAGrace
	}
	return cfg.ClientCAGrace
}

// ClockOrReal is the clock a controller runs on: Clock, or the real one.
func (cfg Config) ClockOrReal() clock.PassiveClock {
	if cfg.Clock == nil {
		return clock.RealClock{}
	}
	return cfg.Clock
}
