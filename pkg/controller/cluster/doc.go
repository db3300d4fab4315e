// Package cluster is the PostgresCluster controller: each pass reads one
// observation snapshot, merges the class into the cluster's spec, runs the
// ordered component pipeline of ADR-0002 (secret, objectStore, provisioner,
// monitor, pooler, backup, configMap, podMonitor), each Reconcile (actuate)
// then Observe (converge), and writes status once at the end. The
// database's roles are not the cluster's concern: each PostgresDatabase
// writes CNPG DatabaseRoles for its own; the provisioner only empties the
// spec.managed.roles an earlier setpoint wrote (roles_release.go). The
// cluster's one role is setpoint's own, setpoint_monitor, which its SQL
// logs in as unless superuser access is on (superuser_access.go,
// component_monitor.go, postgres_conn.go).
package cluster
