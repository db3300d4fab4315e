package cluster

import "github.com/setpoint-dev/setpoint/pkg/controller"

// Child name suffixes.
const (
	superuserSuffix   = "-superuser"
	objectStoreSuffix = "-backup"
	poolerRWSuffix    = "-pooler-rw"
	poolerROSuffix    = "-pooler-ro"
	backupSuffix      = "-backup"
	snapshotSuffix    = "-snapshot"
	configMapSuffix   = "-connection"
	caSuffix          = "-ca"
	podMonitorSuffix  = "-metrics"
)

// Finalizer keeps a PostgresCluster until its deletion policy has run.
const Finalizer = "postgres.setpoint.dev/cluster"

// Field managers. managed.roles is an atomic list in CNPG's schema, so the
// managedRoles component applies it under its own manager: an apply of the
// rest of the Cluster by the provisioner must not remove it.
const (
	fieldManager      = controller.FieldManager
	rolesFieldManager = "setpoint-roles"
)
