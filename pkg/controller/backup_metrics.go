package controller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/statemetrics"
)

// BackupMetrics are the per-cluster gauges of backup health, so a platform
// team can alert on a cluster whose backups fail while it stays Ready
// (the BackupHealthy condition says the same in status). Create them once
// per process; a nil *BackupMetrics records nothing.
type BackupMetrics struct {
	lastBackup *prometheus.GaugeVec
	archiving  *prometheus.GaugeVec
}

// NewBackupMetrics registers the backup gauges with reg.
func NewBackupMetrics(reg prometheus.Registerer) *BackupMetrics {
	labels := statemetrics.ClusterLabels
	m := &BackupMetrics{
		lastBackup: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "setpoint_cluster_last_successful_backup_timestamp_seconds",
			Help: "Unix time the last successful base backup ended, as the barman-cloud plugin reports it; absent before the first.",
		}, labels),
		archiving: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "setpoint_cluster_wal_archiving_ok",
			Help: "1 while CloudNativePG reports WAL archiving working (ContinuousArchiving), 0 while it fails; absent before the first WAL file is archived.",
		}, labels),
	}
	reg.MustRegister(m.lastBackup, m.archiving)
	return m
}

// BackupReading is what the gauges show of one cluster; a nil field
// removes its gauge.
type BackupReading struct {
	LastSuccessfulBackup *time.Time
	ArchivingOK          *bool
}

// Set exports r for the cluster key.
func (m *BackupMetrics) Set(key types.NamespacedName, r BackupReading) {
	if m == nil {
		return
	}
	if t := r.LastSuccessfulBackup; t != nil {
		m.lastBackup.WithLabelValues(key.Namespace, key.Name).Set(float64(t.UnixMilli()) / 1000)
	} else {
		m.lastBackup.DeleteLabelValues(key.Namespace, key.Name)
	}
	if ok := r.ArchivingOK; ok != nil {
		v := 0.0
		if *ok {
			v = 1
		}
		m.archiving.WithLabelValues(key.Namespace, key.Name).Set(v)
	} else {
		m.archiving.DeleteLabelValues(key.Namespace, key.Name)
	}
}

// Forget removes a cluster's gauges (it is gone, or has no object store).
func (m *BackupMetrics) Forget(key types.NamespacedName) {
	m.Set(key, BackupReading{})
}
