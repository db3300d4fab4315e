package controller

import (
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	"github.com/setpoint-dev/setpoint/pkg/collector"
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
	CAs *CACache
	// Samples are the Postgres health collector's last samples, read by
	// the cluster pass at the top; nil records no health.
	Samples collector.Reader
	// ClassesReadOnly: the operator watches only some namespaces
	// (--watch-namespaces), so it cannot know every PostgresCluster of a
	// class; it never writes classes (no class-in-use finalizer), which
	// other installs watching other namespaces share.
	ClassesReadOnly bool
}
