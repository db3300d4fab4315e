package controller

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// UpgradeMetrics are the per-cluster gauges of the last major upgrade
// (status.upgrade), so a platform team can alert on an upgrade that
// failed or waits too long (a preflight obstacle, a missing
// acknowledgement) without reading every cluster's status. Create them
// once per process; a nil *UpgradeMetrics records nothing.
type UpgradeMetrics struct {
	phase      *prometheus.GaugeVec
	transition *prometheus.GaugeVec
}

// NewUpgradeMetrics registers the upgrade gauges with reg.
func NewUpgradeMetrics(reg prometheus.Registerer) *UpgradeMetrics {
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
		reg.MustRegister(g)
		return g
	}
	return &UpgradeMetrics{
		phase: gauge("setpoint_cluster_major_upgrade_phase",
			"1 for the phase the cluster's last major upgrade is in (status.upgrade.phase), 0 for the others; absent for a cluster never upgraded.",
			"namespace", "cluster", "phase"),
		transition: gauge("setpoint_cluster_major_upgrade_transition_timestamp_seconds",
			"Unix time the last major upgrade entered its current phase (status.upgrade.lastTransitionTime); absent for a cluster never upgraded.",
			"namespace", "cluster"),
	}
}

// Set exports u for the cluster key; nil removes its gauges.
func (m *UpgradeMetrics) Set(key types.NamespacedName, u *pgv1.MajorUpgradeStatus) {
	if m == nil {
		return
	}
	for _, p := range pgv1.UpgradePhases {
		if u == nil {
			m.phase.DeleteLabelValues(key.Namespace, key.Name, string(p))
			continue
		}
		v := 0.0
		if u.Phase == p {
			v = 1
		}
		m.phase.WithLabelValues(key.Namespace, key.Name, string(p)).Set(v)
	}
	if u == nil {
		m.transition.DeleteLabelValues(key.Namespace, key.Name)
		return
	}
	m.transition.WithLabelValues(key.Namespace, key.Name).Set(float64(u.LastTransitionTime.UnixMilli()) / 1000)
}

// Forget removes a cluster's gauges (it is gone).
func (m *UpgradeMetrics) Forget(key types.NamespacedName) { m.Set(key, nil) }
