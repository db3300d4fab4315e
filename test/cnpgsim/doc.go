// Package cnpgsim is a stand-in for CloudNativePG (CNPG) that behaves like
// CNPG as seen from outside — through the API objects and through real
// PostgreSQL 15 servers — for setpoint's integration tests and the local
// sandbox, where CNPG's own operator cannot run (its instances are Pods and
// nothing runs Pods there). It is test-side code on plain client-go.
//
// # What it does
//
// A Simulator watches CNPG objects (level-triggered informers and work
// queues, one per kind) and, for each Cluster:
//
//   - runs a real Postgres server (initdb, then postgres, as the postgres OS
//     user when we are root) on a free 127.0.0.1 port, with SCRAM-SHA-256
//     authentication and TLS 1.3 only (ssl=on);
//   - stores a generated ECDSA CA in Secret `<name>-ca` (ca.crt, ca.key) and
//     signs the server certificate with it for `<name>-rw`, `-ro`, `-r` (and
//     each Pooler's name) in their bare, `.<ns>`, `.<ns>.svc` and
//     `.<ns>.svc.cluster.local` forms;
//   - sets the postgres password from the superuser Secret (username
//     postgres, password) when enableSuperuserAccess is true — generating
//     `<name>-superuser` when no Secret is named — and to NULL when it is not;
//   - creates Services `<name>-rw`, `-ro`, `-r` (port 5432, owned by the
//     Cluster);
//   - writes status as CNPG does: phase "Setting up primary", then "Cluster in
//     healthy state" (and "Applying configuration" while changing parameters,
//     "Failing over" while the server is down), instances, readyInstances,
//     currentPrimary and targetPrimary (`<name>-1`), writeService,
//     readService, and condition Ready (True, reason ClusterIsReady, only in
//     the healthy phase; else False, ClusterIsNotReady); it writes status
//     only when it changes;
//   - applies spec.postgresql.parameters by rewriting a configuration file
//     and reloading, restarting when a changed parameter needs it
//     (pg_settings.context = 'postmaster'); values the server refuses are
//     rolled back and the sync retried; spec.postgresql.pg_hba lines go
//     before the final `host all all all scram-sha-256` rule;
//   - reconciles spec.managed.roles for real (CREATE/ALTER/DROP ROLE, login,
//     inherit, connection limit, comment, inRoles — granting missing and
//     revoking unlisted memberships — and the password from passwordSecret,
//     whose username must equal the role name), reporting
//     status.managedRolesStatus byStatus (reconciled, pending-reconciliation,
//     not-managed, reserved: postgres and streaming_replica) and
//     cannotReconcile (role → messages); Secrets labelled cnpg.io/reload:
//     "true" trigger a new pass at once;
//   - on deletion stops the server and removes its data directory.
//
// Passwords reach Postgres only as SCRAM-SHA-256 verifiers computed here
// (`ALTER ROLE … PASSWORD 'SCRAM-SHA-256$…'`), so no plaintext appears in a
// statement, the server log or an error; whether a Secret's password is
// already in place is checked by re-deriving the stored verifier with its
// salt. log_statement stays 'none'. The Simulator itself connects over the
// server's Unix socket with peer authentication mapped to postgres, so it
// never needs the superuser password.
//
// For a Database it adds CNPG's finalizer cnpg.io/deleteDatabase, runs CREATE
// DATABASE … OWNER (or ALTER DATABASE … OWNER TO), CREATE EXTENSION IF NOT
// EXISTS / DROP EXTENSION IF EXISTS per extension, ensure absent as DROP
// DATABASE, and reports status.applied, message (Postgres's own message, e.g.
// `role "x" does not exist`) and observedGeneration. On deletion it drops the
// database when databaseReclaimPolicy is delete and keeps it when retain,
// then removes the finalizer. A Pooler gets a Service of its name and status
// {instances: spec.instances, phase: active}; a ScheduledBackup gets
// lastCheckTime and nextScheduleTime from its six-field schedule (an invalid
// one is reported in status.error).
//
// # Reaching the servers: the host map
//
// Inside Kubernetes a client dials `<cluster>-rw.<ns>.svc:5432`. Here the
// Simulator publishes, in Options.HostMapFile, a JSON object from such
// "host:port" strings to loopback addresses:
//
//	{"shop-rw.default.svc:5432": "127.0.0.1:41234", "shop-ro.default:5432": "127.0.0.1:41234", …}
//
// with the `.<ns>`, `.<ns>.svc` and `.<ns>.svc.cluster.local` forms of each
// Cluster's three Services and of each of its Poolers (the bare name is left
// out: it is ambiguous across namespaces). The file is rewritten atomically
// (temporary file and rename) whenever it changes, and removed when Run
// returns. A client keeps the Service name as the TLS server name and
// verifies against `<cluster>-ca`; only the TCP dial is redirected. Addr,
// HostMap and Resolve give tests the same information.
//
// # Shared-backend mode
//
// With Options.SharedBackend one Postgres server (max_connections 500)
// serves every Cluster, so scale tests need not start a server per Cluster.
// What changes:
//
//   - Every `<name>-ca` holds the same CA, and the server certificate covers
//     `*.<ns>`, `*.<ns>.svc` and `*.<ns>.svc.cluster.local` for each namespace
//     with a Cluster (reissued and reloaded when a namespace is added).
//   - Roles and databases are server-wide in Postgres: Clusters share one
//     namespace of role and database names. Two Clusters managing the same
//     role name fight over its password and attributes; two Databases with
//     the same name are one database. Scale tests must use distinct names.
//     not-managed is not reported (it would list every other Cluster's
//     roles).
//   - One postgres role cannot hold every Cluster's superuser password, so
//     postgres is trusted over TLS from 127.0.0.1 whatever password is sent,
//     and superuser Secrets are not applied.
//   - spec.postgresql.parameters and pg_hba are not applied (they are
//     server-wide).
//   - StopServer and StartServer return ErrSharedBackend. Deleting a Cluster
//     removes its Services and host-map entries but keeps its roles and
//     databases (reclaim delete on a Database still drops it).
//
// # Fault injection
//
// StopServer (the server stops and stays down: phase "Failing over",
// readyInstances 0, Ready False) and StartServer; ForcePhase (any phase
// string, Ready False unless it is the healthy phase; "" clears); FailRole
// and ClearRoleFailure (the role is left alone and reported in
// cannotReconcile with the given message and in pending-reconciliation);
// SetHealthyDelay and Options.HealthyDelay (the Cluster stays in "Setting up
// primary", readyInstances 0, for that long after its server starts). A
// postmaster that dies on its own is noticed at once: "Failing over", then
// restarted and healthy again. Faults may be set before the Cluster exists
// and are forgotten when it is deleted.
//
// # Where the stand-in is simpler than CNPG
//
//   - One server plays every instance: readyInstances is spec.instances when
//     healthy; there are no replicas, no replication, no switchover or
//     failover (the -ro Service reaches the primary), no Pods, PVCs, PDBs or
//     instance status; storage size, resources, affinity and imageName are
//     ignored, and the server is always Debian's PostgreSQL 15 whatever the
//     image says.
//   - Only the fields of setpoint's typed CNPG subset (pkg/apis/cnpg/v1) are
//     read: no bootstrap (no `app` database, `app` owner or `<name>-app`
//     Secret), no superuser/createdb/createrole/replication/bypassrls,
//     validUntil or disablePassword on roles, no Database
//     connectionLimit/locale/template/schemas, no extension updates.
//   - No admission webhook: invalid specs are not refused; fixed parameters
//     (port, ssl, listen_addresses, …) are skipped instead of rejected.
//   - Status is a subset: no phaseReason beyond stopped/failing, no
//     passwordStatus, no conditions besides Ready (no ContinuousArchiving,
//     LastBackupSucceeded), no Database extension/schema status, no
//     `<name>-server` or replication Secrets, no certificates status.
//   - Unlabelled password Secrets are re-read at the Cluster's next event,
//     not on a timer.
//   - Poolers run no PgBouncer: the host map sends a Pooler's name straight
//     to the server (same certificate, same pg_hba), so pool mode and
//     pgbouncer parameters have no effect; the phase is always active.
//   - ScheduledBackups never create Backups (lastScheduleTime stays unset,
//     immediate is ignored); ObjectStores are not touched (the barman-cloud
//     plugin reports serverRecoveryWindow only after backups, which never
//     happen); no WAL archiving.
//   - Passwords are hashed as given; Postgres would SASLprep non-ASCII
//     passwords first.
//   - For speed the servers run with fsync=off and full_page_writes=off, and
//     initdb with --no-sync: data survives a server crash, not a machine
//     crash.
//   - Cluster objects get no finalizer; a deleted Cluster's server is removed
//     when the deletion is seen. Pdeathsig kills the servers if the process
//     dies without Run returning, but then the data directories stay.
package cnpgsim
