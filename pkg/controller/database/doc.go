// Package database is the PostgresDatabase controller. Each pass reads one
// observation snapshot and walks the linear condition pipeline of ADR-0002:
// ClusterReady → SecretsReady → ConfigMapsReady → RolesReady →
// DatabasesReady → PrivilegesReady. Conditions accumulate; the pass stops at
// the first step that is not ready, with that step's requeue hint, and
// writes status once at the end. Roles are not created here: the database
// publishes its role intent in status and the PostgresCluster controller's
// managedRoles component, the single writer of CNPG's spec.managed.roles,
// applies it. A finalizer runs each database's deletionPolicy.
package database
