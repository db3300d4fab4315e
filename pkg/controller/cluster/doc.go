// Package cluster is the PostgresCluster controller: each pass reads one
// observation snapshot, merges the class into the cluster's spec, runs the
// ordered component pipeline of ADR-0002 (secret, objectStore, provisioner,
// pooler, backup, configMap, podMonitor), each Reconcile (actuate) then
// Observe (converge), and writes status once at the end. Roles are not the
// cluster's concern: each PostgresDatabase writes CNPG DatabaseRoles for
// its own; the provisioner only empties the spec.managed.roles an earlier
// setpoint wrote (roles_release.go).
package cluster
