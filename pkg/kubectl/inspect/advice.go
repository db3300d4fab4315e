package inspect

// advice is what a user can do about each reason setpoint writes into a
// condition (grep pkg/controller for them). Reasons of waits that end on
// their own say so, so that nobody "fixes" a cluster that is on its way.
var advice = map[string]string{
	// PostgresDatabase.
	"ClusterNotFound":          "create the PostgresCluster that spec.clusterRef names, in the same namespace (clusterRef is immutable: to use another cluster, create a new PostgresDatabase)",
	"ClusterDeleting":          "the PostgresCluster is being deleted; this database cannot become Ready on it",
	"ClusterNotReady":          "wait: the database goes on once its cluster is Ready (see the cluster's explanation below)",
	"ClusterFailed":            "fix the cluster first (see the cluster's explanation below)",
	"InvalidName":              "two PostgresDatabases map to the same child names (the message names the other): rename one of them",
	"SecretConflict":           "a Secret of that name exists and is not this object's: rename or delete that Secret, or rename the PostgresDatabase",
	"ConfigMapConflict":        "a ConfigMap of that name exists and is not this object's: rename or delete it",
	"ExternalSecretNotFound":   "create the Secret that passwordConfig names (type kubernetes.io/basic-auth, username = the role name, password)",
	"ExternalSecretInvalid":    "fix the Secret that passwordConfig names: type kubernetes.io/basic-auth, username equal to the role name, a non-empty password",
	"SecretInvalid":            "fix the Secret named in the message (type kubernetes.io/basic-auth with username and password)",
	"RolesPending":             "wait: CloudNativePG applies the roles within seconds; if it does not, look at the DatabaseRoles' status (kubectl get databaseroles)",
	"RoleNotApplied":           "CloudNativePG cannot apply a role: its DatabaseRole's message says why",
	"RoleCertificatePending":   "wait: CloudNativePG's operator issues the role's client certificate within seconds; if it does not, look at the DatabaseRole's status.clientCertificate",
	"RoleCertificateNotIssued": "CloudNativePG cannot issue the role's client certificate (the message says why): a client CA without its key needs certificates issued by hand; a same-named Secret must go",
	"RoleConflict":             "another object manages that role (the message names it): remove it there or use another database name",
	"RoleExists":               "Postgres already has that role and setpoint did not create it for this object: drop or rename it in Postgres, use another database name, or take it over with spec.adoptFrom if it came from a restore",
	"RolesMigrating":           "wait: the cluster is moving roles out of spec.managed.roles (an upgrade)",
	"RolePrivilegesReverted":   "someone gave the role a privilege on its DatabaseRole (superuser, createrole, inRoles, ...); setpoint took it back and the role is unprivileged once CloudNativePG applies it. Find who: kubectl get databaserole <name> --show-managed-fields",
	"DatabaseApplying":         "wait: CloudNativePG creates the database; if it does not, look at the CNPG Database's status",
	"DatabaseNotApplied":       "CloudNativePG cannot apply the database: the CNPG Database's message says why",
	"DatabaseExists":           "Postgres already has a database of that name that setpoint did not create for this object: use another name, or spec.adoptFrom after a restore",
	"DatabaseConflict":         "another object manages a database of that name (the message names it): use another name",
	"GrantFailed":              "setpoint could not grant privileges as the database's owner: the message has Postgres's error; it retries. \"every role may still CREATE in schema public\" means PostgreSQL 14 or earlier: upgrade to 15 or later",
	"AdminUnavailable":         "the admin role cannot log in yet (its password is being applied): wait, it retries",
	"RoleCleanupPending":       "wait: CloudNativePG is dropping the roles",
	"RoleCleanupBlocked":       "a role cannot be dropped (it still owns or holds objects, or the cluster is not Ready): see the message",
	"DatabaseCleanupPending":   "wait: CloudNativePG is dropping the database",
	"DatabaseCleanupBlocked":   "the database cannot be dropped (see the message): fix the cluster or drop it yourself",
	"PostgresUnreachable":      "setpoint cannot reach Postgres: check the cluster's instances and network; it retries",

	// PostgresCluster.
	"ClassNotFound":            "create the PostgresClusterClass that spec.class names (spec.class is immutable)",
	"CNPGProvisioning":         "wait: CloudNativePG is creating the instances",
	"SpecApplied":              "wait: CloudNativePG is applying the change setpoint made",
	"ParametersPending":        "wait: Postgres is loading the new parameters",
	"RestartPending":           "wait: a parameter needs a restart, which CloudNativePG performs",
	"ParametersNotApplied":     "Postgres did not put these parameters in effect: the message names each with the value wanted and Postgres's error; correct postgresqlConfig",
	"UnknownParameter":         "Postgres does not know a parameter of postgresqlConfig: fix its name (in the cluster or its class)",
	"ParameterNotAllowed":      "CloudNativePG manages that parameter: remove it from postgresqlConfig",
	"PgHBAInvalid":             "Postgres rejects a pgHBA line (line number and error in the message): fix it before the next restart",
	"ScheduledBackupInvalid":   "CloudNativePG refuses backup.schedule: fix the cron expression",
	"DowngradeRefused":         "postgresVersion cannot go down: restore the higher version in the cluster or its class",
	"StorageShrinkRefused":     "storage.size cannot shrink: restore the larger size in the cluster or its class",
	"AutoGrowLimitMissing":     "storage.autoGrow.enabled needs a limit: set storage.autoGrow.limit",
	"AutoGrowInvalid":          "fix storage.autoGrow (see the message)",
	"BackupTargetMissing":      "create the backup credentials Secret that backup.objectStore.credentialsSecretName names",
	"BackupCredentialsMissing": "create the backup credentials Secret (keys ACCESS_KEY_ID, ACCESS_SECRET_KEY)",
	"BackupTargetUnavailable":  "install the barman-cloud plugin, or remove backup.objectStore",
	"ArchiveConflict":          "another cluster archives into the same folder (the message names it): rename one cluster or give it another store",
	"SuperuserSecretNotFound":  "create the Secret passwordConfig.superuserExternalSecretRef names (basic-auth, username postgres)",
	"SuperuserSecretInvalid":   "fix the superuser Secret: type kubernetes.io/basic-auth, username postgres, a password",
	"SuperuserAccessOff":       "an external superuser Secret needs superuserAccess: set it true or remove the Secret reference",
	"MonitorRoleConflict":      "another DatabaseRole or managed.roles entry manages setpoint_monitor: remove it",
	"CertAuthGroupConflict":    "another object manages role setpoint_cert_auth (the message names it): remove it there",
	"CertAuthGroupExists":      "Postgres has a setpoint_cert_auth role setpoint did not create: drop or rename it in Postgres",
	"MonitorRoleExists":        "Postgres has a setpoint_monitor role setpoint did not create: drop or rename it in Postgres",
	"MonitorRolePending":       "wait: CloudNativePG applies the monitoring role",
	"MonitorRoleNotApplied":    "CloudNativePG cannot apply the monitoring role: its DatabaseRole's message says why",
	"PoolerProvisioning":       "wait: PgBouncer's Deployment is starting; if it stays, look at its Pods",
	"PoolerConflict":           "a Pooler of that name exists and is not this cluster's: rename or delete it",
	"ObjectStoreConflict":      "an ObjectStore of that name exists and is not this cluster's: rename or delete it",
	"ScheduledBackupConflict":  "a ScheduledBackup of that name exists and is not this cluster's: rename or delete it",
	"PodMonitorConflict":       "a PodMonitor of that name exists and is not this cluster's: rename or delete it",
	"MonitoringUnavailable":    "install the Prometheus Operator's CRDs, or set monitoring.enabled: false",
	"WaitingForCA":             "wait: CloudNativePG creates the cluster's CA Secret",
	"RestoreFailed":            "the restore cannot succeed as asked (the message quotes CNPG): delete this cluster and create it again with a restore that can (another targetTime or objectStoreName), or create the missing ObjectStore",
	"RestoreTargetInFuture":    "restore.targetTime is later than the cluster's creation: delete it and create it again with a past targetTime (restore is immutable)",
	"ProvisionerLost":          "the CNPG Cluster was deleted with its data: annotate the PostgresCluster postgres.setpoint.dev/recreate=latest-backup or =empty (see docs/operations/failure-modes.md, \"A lost CNPG Cluster\")",
	"ClusterSpecInvalid":       "the merged class and cluster settings are invalid (see the message): fix the cluster or its class",

	// BackupHealthy (the cluster stays Ready: it serves, but cannot be restored to the present).
	"ArchivingPending": "wait: CloudNativePG archives a new cluster's first WAL file within a minute; if it does not, look at the CNPG Cluster's ContinuousArchiving condition",
	"ArchivingFailing": "WAL archiving to the object store fails, so the recovery window stops moving and WAL piles up on the data volume: fix what CloudNativePG's message names (often the Secret backup.objectStore.credentialsSecretName names, or the endpoint or bucket); archiving resumes by itself",
	"LastBackupFailed": "the last base backup failed: read the message and the failed Backup's status.error (kubectl get backups -l cnpg.io/cluster=<cluster>), fix the cause, then take one with kubectl setpoint backup",
	"BackupOverdue":    "no base backup succeeded since the schedule fired: look at the ScheduledBackup <cluster>-backup and its latest Backups (kubectl get backups -l cnpg.io/cluster=<cluster>)",

	// PasswordRotation.
	"RotationPending":          "wait: setpoint is writing the new passwords",
	"NoRoleSelected":           "rotate-passwords-roles selects no role of this object: fix it (kinds admin, rw, ro or role names)",
	"UnknownRoles":             "rotate-passwords-roles names something that is neither a kind nor a role of this object: fix it",
	"ExternalSecretNotRotated": "these roles' Secrets are yours: setpoint never writes them, rotate them yourself",
}

// Advice is what the user can do about reason; a general hint when the
// reason is one setpoint does not document (CNPG's own, for example).
func Advice(reason string) string {
	if a, ok := advice[reason]; ok {
		return a
	}
	return "read the condition's message and the child object's status above; setpoint retries on its own"
}
