// Package cluster is the PostgresCluster controller: each pass reads one
// observation snapshot, merges the class into the cluster's spec, runs the
// ordered component pipeline of ADR-0002 (secret, objectStore, provisioner,
// managedRoles, pooler, backup, configMap), each Reconcile (actuate) then
// Observe (converge), and writes status once at the end.
package cluster
