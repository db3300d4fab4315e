// Package database is the PostgresDatabase controller. Each pass reads one
// observation snapshot and walks the linear condition pipeline of ADR-0002:
// SecretsReady → ClusterReady → ConfigMapsReady → RolesReady →
// DatabasesReady → PrivilegesReady. Conditions accumulate; the pass stops at
// the first step that is not ready, with that step's requeue hint, and
// writes status once at the end. Each role is a CNPG DatabaseRole of its
// own, named after the cluster and the role, so the API server decides
// which PostgresDatabase has a role. A finalizer runs each database's
// deletionPolicy.
package database
