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
//   - first picks the image as CNPG does (image_catalog.go): imageName,
//     or with spec.imageCatalogRef the image of its major in the
//     ClusterImageCatalog or ImageCatalog it names; Simulator.Image
//     reports it (CNPG's status.image, which setpoint's typed status
//     does not read, so the stand-in does not write it). When the catalog
//     or the major is missing: phase "Cluster has incomplete or invalid
//     image catalog" with CNPG's phaseReason ("selected major version is
//     not available in the catalog", "catalog ClusterImageCatalog/x not
//     found"), Ready False, and nothing else, until the Cluster or the
//     catalog changes (catalogs are watched, whatever Options.Selector
//     says);
//   - keeps status.pgDataImageInfo {image, majorVersion} as CNPG 1.30's
//     reconcileImage does (data_image.go): set at the Cluster's first sync
//     (before its primary runs) from that image and its major (the
//     catalog reference's, or the imageName tag's leading number; a tag
//     without one is CNPG's "cannot parse version from image …" in the
//     catalog-error phase), moved at once to another image of the same
//     major, and to a higher major only by a major upgrade;
//   - plays CNPG's offline in-place major upgrade (major_upgrade.go) when
//     the requested major is above pgDataImageInfo's: phase "Upgrading
//     Postgres major version" ("Upgrading cluster to major version N"),
//     Ready False, the server stopped, a Job
//     `<name>-1-major-upgrade` as CNPG makes it whose status the stand-in
//     writes as the Job controller would (no Job controller runs here),
//     Complete after Options.MajorUpgradeDuration (default 2 s); then
//     pgDataImageInfo on the new image and major, the Job deleted, the
//     same data directory started again, the replicas re-created under
//     new serials ("Creating a new replica", "Creating replica
//     <name>-<serial>-join") and healthy. A failed Job (FailMajorUpgrade)
//     leaves the Cluster upgrading with its server down, as CNPG's
//     backoffLimit 0 does; asking for the old major again while the Job
//     exists deletes it, records Event MajorUpgradeRollback and starts the
//     server on the old image. server_version_num stays 15 after any
//     upgrade: only PostgreSQL 15's binaries exist here;
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
//     "Failing over" while a server that ran is down), instances,
//     readyInstances, currentPrimary and targetPrimary (`<name>-1`),
//     writeService, readService, condition Ready (True, reason
//     ClusterIsReady, only in the healthy phase; else False,
//     ClusterIsNotReady) and condition Initialized (True, BootstrapCompleted,
//     for good once the first instance's PVC exists — at once, or with the
//     full-recovery Job — else False, BootstrapPending: CNPG 1.30 counts
//     instances by PVC); currentPrimary only once an instance ran (after
//     initdb, or after a recovery that promoted); it writes status only
//     when it changes;
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
//   - follows a larger spec.storage.size as CNPG does with an expandable
//     storage class (an online PVC resize, no restart): the instances'
//     PVCs (`<name>-N`) are listed in status.resizingPVC for
//     Options.ResizeDelay, then in status.healthyPVC again, and
//     VolumeSize reports the new size. Only that is simulated: there are
//     no PVCs, and the data directory is not bounded by the size, so what
//     Postgres reports as its size (pg_database_size, pg_wal) is its real
//     data, a figure a test can raise by writing rows. A shrink never
//     reaches the stand-in (CNPG's webhook refuses it; it would be
//     ignored, as Kubernetes refuses to shrink a PVC);
//   - on deletion stops the server and removes its data directory.
//
// Passwords reach Postgres only as SCRAM-SHA-256 verifiers computed here
// (`ALTER ROLE … PASSWORD 'SCRAM-SHA-256$…'`), so no plaintext appears in a
// statement, the server log or an error; whether a Secret's password is
// already in place is checked by re-deriving the stored verifier with its
// salt. As CNPG's passwordStatus does, the stand-in remembers per role the
// Secret version it last set the password from and the role's pg_authid
// row version (xmin) after it; while both hold, the check is skipped, so a
// sync does not derive a SCRAM key for every role (in memory, not in
// status: a restarted stand-in checks every password once). log_statement stays 'none'. The Simulator itself connects over the
// server's Unix socket with peer authentication mapped to postgres, so it
// never needs the superuser password.
//
// For a Database it adds CNPG's finalizer cnpg.io/deleteDatabase, runs CREATE
// DATABASE … OWNER (or ALTER DATABASE … OWNER TO), CREATE EXTENSION IF NOT
// EXISTS / DROP EXTENSION IF EXISTS per extension, ensure absent as DROP
// DATABASE, and reports status.applied and message in CNPG's words (e.g.
// `while creating database "d": ERROR: role "x" does not exist (SQLSTATE
// 42704)`), and observedGeneration only on success, as CNPG does (a failure
// keeps the generation last applied). On deletion it drops the
// database when databaseReclaimPolicy is delete and keeps it when retain,
// then removes the finalizer. A DatabaseRole (CNPG 1.30) is applied as
// CNPG's operator and instance manager do together — finalizer
// cnpg.io/deleteRole, CREATE or ALTER ROLE with every attribute, inRoles,
// comment and the Secret's password, status applied, message,
// observedGeneration, secretResourceVersion and the PasswordSecretChange
// condition, managed.roles winning over it, a second object for one role
// refused, reclaim delete or retain, release on the Cluster's deletion,
// and client certificates (Secret `<object>-client-cert` signed by the
// Cluster's CA, status.clientCertificate; servers trust that CA for
// client certificates and apply the Cluster's pg_hba lines, where a `cert`
// rule lets such a role in); databaserole.go says what comes from which
// CNPG source file. A Pooler gets a Service of its name and status
// {instances: spec.instances, phase: active}; a ScheduledBackup gets
// lastCheckTime and nextScheduleTime from its six-field schedule (an invalid
// one is reported in status.error).
//
// # Backups, WAL archiving and recovery
//
// The object store is a local directory. A barman-cloud ObjectStore's
// destinationPath and a serverName map to the folder
// `<Dir>/objectstore/<scheme>/<path segments…>/<serverName>` under the
// stand-in's state directory (Dir; "s3://backups/pg" with serverName shop
// is `objectstore/s3/backups/pg/shop`; characters other than letters,
// digits, `.`, `_` and `-` become `_`), holding `wals/` (archived WAL and
// history files, flat) and `base/<backupID>/` (`data/`, a plain-format
// base backup, and `backup.json`). It outlives the Clusters (deleting a
// Cluster keeps its archive) and goes with the state directory.
//
//   - WAL archiving: every dedicated server runs with archive_mode on (as
//     CNPG's instances do). A Cluster whose spec.plugins has
//     barman-cloud.cloudnative-pg.io with isWALArchiver true gets an
//     archive_command (run by Postgres as the postgres OS user) copying each
//     finished segment into `wals/` of the folder for its ObjectStore
//     (parameter barmanObjectName, read live from the API server: the
//     plugin's CRD is optional) and serverName (default the Cluster's name).
//     While that ObjectStore does not exist the command is empty, so Postgres
//     keeps the WAL (looked at again every 5 s); without an archiver the
//     command succeeds without copying, as CNPG's does. The command runs a
//     script in the server's own directory (outside the data directory)
//     and leaves each outcome there, "ok" or its error; the archiving loop
//     (every 2 s per Cluster) sets ContinuousArchiving from it as CNPG's
//     instance manager does after each wal-archive (True
//     ContinuousArchivingSuccess "Continuous archiving is working", False
//     ContinuousArchivingFailing with the error), and switches a new
//     healthy primary's first WAL file out once (CHECKPOINT,
//     pg_switch_wal), so archiving is known within seconds.
//   - The store refuses WAL and backups while the credentials Secret an
//     ObjectStore's s3Credentials name exists without the key, with the
//     barman-cloud plugin's words ("rpc error: code = Unknown desc =
//     missing key ACCESS_KEY_ID, inside secret backup-creds"): the
//     archiving loop writes the refusal for the script, which fails each
//     WAL file with it (Postgres keeps the file and retries, so archiving
//     recovers by itself once the Secret is whole), and a Backup fails
//     with it (LastBackupSucceeded False LastBackupFailed, no
//     lastFailedBackupTime: the plugin notes that only when barman's
//     backup itself fails). A missing Secret, or no credentials, is
//     accepted (the plugin refuses those too: store_credentials.go). The
//     other forms: an S3 IAM role (inheritFromIAMRole) is accepted, with
//     no AWS to ask; Azure's and Google's are checked for their Secrets'
//     keys in the plugin's words, then refused with the stand-in's own
//     ("cnpgsim: … does not reach Azure Blob Storage"): the folder never
//     stands in for a cloud it cannot reach. endpointCA and the CNPG
//     Cluster's serviceAccountTemplate are ignored (no TLS, no Pods).
//   - Backups: a Backup with method plugin and the barman-cloud plugin, on a
//     healthy Cluster with that archiver, runs pg_basebackup (as the postgres
//     OS user, over the Unix socket, -X none: the WAL comes from the archive)
//     into `base/<backupID>/`, waits until its last WAL file is archived, and
//     reports phase running then completed with startedAt, stoppedAt,
//     beginWal, endWal, beginLSN, endLSN, backupId (barman's timestamp form),
//     backupName, serverName, destinationPath, method, online and
//     majorVersion; or phase failed with error (no such Cluster, no archiver,
//     no ObjectStore, another method — volumeSnapshot and barmanObjectStore
//     are not simulated —, pg_basebackup's own message). It stays pending
//     while the Cluster is not healthy. Completed and failed Backups are
//     never looked at again.
//   - Schedules: a ScheduledBackup with method plugin creates Backups as
//     CNPG does — `<name>-<YYYYMMDDhhmmss>`, labels cnpg.io/cluster and
//     cnpg.io/scheduled-backup (plus cnpg.io/immediateBackup for the
//     immediate one), owned per backupOwnerReference — one at once when
//     immediate is set and lastScheduleTime is unset, then each time the
//     schedule fires, recording lastScheduleTime. While one of its Backups
//     is neither completed nor failed it fires none and writes no status,
//     looking again each minute (CNPG's concurrency rule): a hung backup
//     stops the schedule. Volume-snapshot schedules only report their times.
//   - Recovery window: after each backup the ObjectStore's
//     status.serverRecoveryWindow[serverName] gets firstRecoverabilityPoint
//     (end of the oldest base backup), lastSuccessfulBackupTime (end of the
//     newest) and, after a failure, lastFailedBackupTime.
//   - Recovery: a Cluster with bootstrap.recovery whose source names an
//     externalClusters entry with the barman-cloud plugin (barmanObjectName,
//     serverName default the entry's name) starts from a copy of the newest
//     base backup that ended at or before recoveryTarget.targetTime (RFC 3339
//     or a PostgreSQL timestamp; the newest backup without a target), with
//     recovery.signal, a restore_command reading the source's `wals/`,
//     recovery_target_time, recovery_target_timeline latest and
//     recovery_target_action promote. It stays "Setting up primary" until
//     Postgres has replayed to the target and promoted, then proceeds like
//     any Cluster (superuser password, roles, its own archiving: a restored
//     Cluster archives to its own serverName; currentPrimary is set only
//     then).
//   - A failed recovery is reported as CNPG 1.30 reports a failed
//     full-recovery Job (recovery_status.go has the source references).
//     When no backup ended before the target (none at all included) or
//     Postgres stops during replay (e.g. "recovery ended before configured
//     recovery target was reached"), the phase is "Cluster is unrecoverable
//     and needs manual intervention" with phaseReason "Instance creation
//     failed for the following jobs: <name>-1-full-recovery. Check the job
//     logs to investigate the cause of the failure.", Ready False, no
//     currentPrimary, and Initialized True (the Job's PVC counts as an
//     instance); the Cluster is not retried. Why it failed ("Error
//     while restoring a backup: no target backup found …", Postgres's FATAL
//     message) is, as with CNPG, only in the Job's log: RecoveryLog returns
//     it. When the source's ObjectStore does not exist, the barman-cloud
//     plugin's hook fails and CNPG cannot create the Job: phase "Cluster
//     cannot proceed to reconciliation due to an error while interacting
//     with plugins", phaseReason "Encountered an error while interacting
//     with plugins: rpc error: code = Unknown desc =
//     objectstores.barmancloud.cnpg.io "<name>" not found", retried every
//     15 s until the ObjectStore exists. Either way the status, once
//     written, is not written again: a sync reports the failure before
//     anything else writes a phase, so it never flaps.
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
//     roles), and a sync reads only the roles in its spec, so its cost does
//     not grow with every other Cluster's roles.
//   - One postgres role cannot hold every Cluster's superuser password, so
//     postgres is trusted over TLS from 127.0.0.1 whatever password is sent,
//     and superuser Secrets are not applied; so is setpoint_monitor, the
//     role setpoint creates per Cluster for its checks (each Cluster's
//     DatabaseRole of it sets the one role's password).
//   - spec.postgresql.parameters and pg_hba are not applied (they are
//     server-wide).
//   - CREATE DATABASE copies the template by FILE_COPY, not Postgres 15's
//     default WAL_LOG, which would write the whole template to the one
//     server's WAL for every Cluster's every database.
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
// primary", readyInstances 0, for that long after its server starts);
// StallBackups and ResumeBackups (each Backup of the Cluster hangs in phase
// running, LastBackupSucceeded False "BackupStarted", until resumed);
// FailMajorUpgrade (the Cluster's next major-upgrade Job ends Failed,
// BackoffLimitExceeded, and is not retried). A
// postmaster that dies on its own is noticed at once: "Failing over", then
// restarted and healthy again. Faults may be set before the Cluster exists
// and are forgotten when it is deleted.
//
// # Where the stand-in is simpler than CNPG
//
//   - One server plays every instance: readyInstances is spec.instances when
//     healthy; there are no replicas, no replication, no switchover or
//     failover (the -ro Service reaches the primary), no Pods, PVCs, PDBs or
//     instance status; resources and affinity are ignored, and the
//     server is always Debian's PostgreSQL 15 whatever the image (or the
//     catalog's image for the major) says: the image only names the major
//     (pgDataImageInfo, major upgrades). Replicas re-created after a major
//     upgrade are announced once each ("Creating a new replica") and
//     renamed in healthyPVC, nothing more (CNPG clones each, and reports
//     the primary ready meanwhile: readyInstances is 0 there).
//   - A major upgrade is played, not run: no pg_upgrade, the server's
//     binaries and server_version_num stay 15, the system identifier and
//     timeline do not change (CNPG's pg_upgrade makes a new system on
//     timeline 1, so a new primary's archive check fails on a folder that
//     holds the old WAL: change serverName, as CNPG's documentation says;
//     the stand-in archives on into the same folder), and extensions are
//     not checked against the target image. CNPG deletes the Pods and
//     waits for them before it creates the Job; the stand-in stops the
//     server and creates the Job at once. status.image and
//     status.targetPGDataImageInfo are not written (setpoint's typed
//     status has neither; Simulator.Image reports the first), nor
//     status.timelineID. The Job has no bootstrap-controller init
//     container, volumes or environment, and no Pod.
//   - Only the fields of setpoint's typed CNPG subset (pkg/apis/cnpg/v1) are
//     read: no bootstrap (no `app` database, `app` owner or `<name>-app`
//     Secret), no superuser/createdb/createrole/replication/bypassrls,
//     validUntil or disablePassword on roles, no Database
//     connectionLimit/locale/template/schemas, no extension updates.
//   - No admission webhook of its own: test/envtest runs CNPG's real
//     webhooks, so the stand-in sees Clusters as CNPG's defaulting webhook
//     left them (its default parameters included) and never an object they
//     refuse. Fixed parameters (port, ssl, listen_addresses, …) that reach it
//     anyway (with the webhooks off) are skipped instead of rejected.
//   - Status is a subset: no phaseReason beyond stopped/failing, failed
//     recoveries and major upgrades, no passwordStatus, no conditions besides Ready,
//     Initialized, ConsistentSystemID and LastBackupSucceeded (no
//     ContinuousArchiving: the archive_command's outcome is not watched),
//     no Database extension/schema status, no `<name>-server` or
//     replication Secrets, no certificates status. test/parity holds what
//     there is to real CNPG's record.
//   - Unlabelled password Secrets are re-read at the Cluster's next event,
//     not on a timer.
//   - Poolers run no PgBouncer: the host map sends a Pooler's name straight
//     to the server (same certificate, same pg_hba), so pool mode and
//     pgbouncer parameters have no effect; the phase is always active.
//   - Backups and archived WAL are plain files, uncompressed and
//     unencrypted, whatever the ObjectStore's wal/data settings; no
//     retention policy is applied; credentials and endpoints are ignored.
//     A new server (after initdb or a recovery) refuses to archive its
//     first WAL file into a folder that already holds WAL, as CNPG's
//     barman-cloud-check-wal-archive does ("Expected empty archive"):
//     archive_command fails, Postgres keeps the WAL and retries, and only
//     the server log says why (no ContinuousArchiving condition).
//     Recovery targets other than targetTime (targetLSN, targetXID,
//     targetName, targetImmediate, backupID) and recovery from volume
//     snapshots or a Backup object (bootstrap.recovery.backup) are not
//     simulated. A failed recovery is reported at once: CNPG reports it
//     once the Job has used up its backoff limit (six retries, minutes),
//     showing "Setting up primary" meanwhile; and at each 15 s retry after
//     a plugin error CNPG registers "Setting up primary" again for a moment
//     before the error, which the stand-in does not (setpoint coalesces
//     such blips).
//   - Shared-backend mode neither archives nor backs up: one server's WAL
//     holds every Cluster's changes. Backups there fail at once with that
//     reason, ScheduledBackups create none, and bootstrap.recovery is
//     ignored (the Cluster starts empty).
//   - Passwords are hashed as given; Postgres would SASLprep non-ASCII
//     passwords first.
//   - For speed the servers run with fsync=off and full_page_writes=off, and
//     initdb with --no-sync: data survives a server crash, not a machine
//     crash.
//   - Cluster objects get no finalizer; a deleted Cluster's server is removed
//     when the deletion is seen. Pdeathsig kills the servers if the process
//     dies without Run returning, but then the data directories stay.
package cnpgsim
