package cluster

import "github.com/setpoint-dev/setpoint/pkg/controller/ownership"

// Suffixes of the children only this controller finds by name (p.name);
// the names other packages read too are pkg/naming's.
const (
	backupSuffix     = "-backup"
	snapshotSuffix   = "-snapshot"
	configMapSuffix  = "-connection"
	podMonitorSuffix = "-metrics"
	// The metrics Service shares the PodMonitor's name: both are how the
	// cluster's metrics are found, by two kinds of scraper.
	metricsServiceSuffix = "-metrics"
)

// Finalizer keeps a PostgresCluster until its deletion policy has run.
const Finalizer = "postgres.setpoint.dev/cluster"

// Field managers. rolesFieldManager is the one an earlier setpoint applied
// the CNPG Cluster's spec.managed.roles under (an atomic list, kept apart
// from the provisioner's fields); it now only empties that list
// (provisioner_roles_release.go).
const (
	fieldManager      = ownership.FieldManager
	rolesFieldManager = "setpoint-roles"
)
