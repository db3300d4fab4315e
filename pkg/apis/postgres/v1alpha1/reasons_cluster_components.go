package v1alpha1

// Any component of PostgresCluster
//
// Reasons any component's condition can carry (see also the reasons
// of both kinds).
const (
	// ReasonWaitingForSecret means the component needs the superuser
	// Secret, which SecretReady has not provided this pass. What to do:
	// wait: the component goes on once SecretReady is True; if it is not,
	// see SecretReady's reason.
	ReasonWaitingForSecret = "WaitingForSecret"
	// ReasonWaitingForCertificates means the component needs the
	// cluster's client CA and replication certificate, which
	// CertificatesReady has not provided this pass. What to do: wait: the
	// component goes on once CertificatesReady is True; if it is not, see
	// CertificatesReady's reason.
	ReasonWaitingForCertificates = "WaitingForCertificates"
	// ReasonWaitingForCNPGCluster means the component needs the CNPG
	// Cluster, which ProvisionerReady has not provided this pass. What to
	// do: wait: the component goes on once ProvisionerReady is True; if
	// it is not, see ProvisionerReady's reason.
	ReasonWaitingForCNPGCluster = "WaitingForCNPGCluster"
	// ReasonNotConfigured means the component is off in the spec (no
	// object store, no backup schedule, no pooler, monitoring disabled):
	// its condition is True. What to do: nothing, or enable it.
	ReasonNotConfigured = "NotConfigured"
)

// SecretReady of PostgresCluster
const (
	// ReasonSecretReady means the generated superuser Secret is in
	// place. What to do: nothing.
	ReasonSecretReady = "SecretReady"
	// ReasonExternalSecretValid means the external superuser Secret
	// named in passwordConfig exists and is valid. What to do: nothing.
	ReasonExternalSecretValid = "ExternalSecretValid"
	// ReasonSuperuserAccessOff means superuser access is off, so there
	// is no superuser Secret (one setpoint created is deleted once the
	// CNPG Cluster no longer uses it). What to do: nothing.
	ReasonSuperuserAccessOff = "SuperuserAccessOff"
	// ReasonSecretMissing means the superuser Secret is not created yet.
	// What to do: wait: setpoint creates the superuser Secret and checks
	// again at once.
	ReasonSecretMissing = "SecretMissing"
	// ReasonSecretError means writing the superuser Secret failed; it is
	// retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonSecretError = "SecretError"
	// ReasonSuperuserSecretNotFound means the external superuser Secret
	// does not exist. What to do: create the Secret that
	// passwordConfig.superuserExternalSecretRef names (type
	// kubernetes.io/basic-auth, username postgres, a password), or fix
	// the reference.
	ReasonSuperuserSecretNotFound = "SuperuserSecretNotFound"
	// ReasonSuperuserSecretInvalid means the external superuser Secret
	// has no password, or a username other than postgres. What to do: fix
	// the superuser Secret: type kubernetes.io/basic-auth, username
	// postgres, a non-empty password.
	ReasonSuperuserSecretInvalid = "SuperuserSecretInvalid"
)

// ObjectStoreReady of PostgresCluster
const (
	// ReasonObjectStoreApplied means the Barman Cloud ObjectStore is
	// applied. What to do: nothing.
	ReasonObjectStoreApplied = "ObjectStoreApplied"
	// ReasonObjectStoreConflict means an ObjectStore of that name exists
	// that setpoint did not create; setpoint leaves it untouched. What to
	// do: delete that ObjectStore or rename it (the message names it;
	// setpoint never takes over an object it did not create), or create
	// the PostgresCluster under another name.
	ReasonObjectStoreConflict = "ObjectStoreConflict"
	// ReasonArchiveConflict means another PostgresCluster's ObjectStore
	// already holds this cluster's archive folder (the same folder, or
	// one inside the other). What to do: give this cluster a
	// destinationPath of its own, or use a class whose backup.objectStore
	// keeps namespaces apart (layout Namespaced); the message names the
	// other cluster.
	ReasonArchiveConflict = "ArchiveConflict"
	// ReasonBackupTargetUnavailable means the ObjectStore CRD (the Barman
	// Cloud plugin) is not installed. What to do: install the Barman
	// Cloud plugin of CloudNativePG, or remove backup.objectStore from
	// the cluster and its class.
	ReasonBackupTargetUnavailable = "BackupTargetUnavailable"
	// ReasonObjectStoreError means writing the ObjectStore failed; it is
	// retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonObjectStoreError = "ObjectStoreError"
)

// ProvisionerReady of PostgresCluster
//
// The CNPG Cluster and Postgres inside it.
const (
	// ReasonClusterHealthy means CloudNativePG reports the cluster
	// healthy and Postgres confirms the managed parameters. What to do:
	// nothing.
	ReasonClusterHealthy = "ClusterHealthy"
	// ReasonPostgresNotChecked means CloudNativePG reports the cluster
	// healthy but nothing can log in yet to confirm it (superuser access
	// is off and the monitor role is not applied yet); True. What to do:
	// nothing; the next pass checks.
	ReasonPostgresNotChecked = "PostgresNotChecked"
	// ReasonReplicaHealthy means CloudNativePG reports the cluster
	// healthy as a replica of its topology's primary (spec.topology),
	// replaying that primary's archive; status.topology says which. Its
	// roles and passwords are the primary's, replayed, so setpoint does
	// not log in to check it; True. What to do: nothing; to promote it,
	// see docs/guides/disaster-recovery.md.
	ReasonReplicaHealthy = "ReplicaHealthy"
	// ReasonPodsUnschedulable means CloudNativePG waits for a Pod of the
	// cluster (an instance, its Job, or PgBouncer) that the scheduler
	// cannot place; the message quotes the scheduler for each. What to
	// do: read the scheduler's reason: give the nodes what placement asks
	// (more nodes or zones for Required anti-affinity, the labels of
	// nodeSelector, tolerations for their taints), or relax placement;
	// "unbound PersistentVolumeClaims" means no volume of the storage
	// class is available.
	ReasonPodsUnschedulable = "PodsUnschedulable"
	// ReasonClusterCreating means the CNPG Cluster is not created yet.
	// What to do: wait: setpoint creates the CNPG Cluster, then
	// CloudNativePG its instances.
	ReasonClusterCreating = "ClusterCreating"
	// ReasonSpecApplied means setpoint just applied a change to the CNPG
	// Cluster and gives CloudNativePG a moment to act on it. What to do:
	// wait: CloudNativePG is applying the change setpoint made; setpoint
	// looks again after at least 5 s.
	ReasonSpecApplied = "SpecApplied"
	// ReasonCNPGProvisioning means CloudNativePG is setting up instances
	// (its phase is quoted). What to do: wait: CloudNativePG is creating
	// the instances; if it lasts, look at the CNPG Cluster's status and
	// its Pods.
	ReasonCNPGProvisioning = "CNPGProvisioning"
	// ReasonCNPGConfiguring means CloudNativePG is changing a running
	// cluster: a switchover, an upgrade, a restart, new configuration.
	// What to do: wait: CloudNativePG finishes the change by itself; if
	// it lasts, look at the CNPG Cluster's status.
	ReasonCNPGConfiguring = "CNPGConfiguring"
	// ReasonCNPGPending means CloudNativePG is failing over, or reports
	// no phase yet. What to do: wait; if it lasts, look at the CNPG
	// Cluster's status and events.
	ReasonCNPGPending = "CNPGPending"
	// ReasonUnknownCNPGPhase means CloudNativePG reports a phase setpoint
	// does not know (quoted in the message). What to do: look at the CNPG
	// Cluster's status and events; a CloudNativePG newer than setpoint
	// supports may report such a phase.
	ReasonUnknownCNPGPhase = "UnknownCNPGPhase"
	// ReasonCNPGFailed means CloudNativePG reports it cannot go on (its
	// phase and reason are quoted). What to do: fix what CloudNativePG
	// names (its phase and reason are in the message); see the CNPG
	// Cluster's status and events (kubectl describe
	// clusters.postgresql.cnpg.io <cluster>). An image catalog without
	// the cluster's major ("Cluster has incomplete or invalid image
	// catalog", the catalog and major named): give the catalog an image
	// for that major, or name another catalog.
	ReasonCNPGFailed = "CNPGFailed"
	// ReasonRestoreFailed means the restore that spec.restore asks for
	// cannot be carried out: CloudNativePG reports phase Failed (quoted).
	// It stays so until the CNPG Cluster recovers, for instance once a
	// missing ObjectStore exists; a restore with no backup to start from
	// never does. What to do: create what is missing (an ObjectStore, for
	// instance), or delete this PostgresCluster and create it again with
	// a restore that can succeed (another targetTime or objectStoreName).
	ReasonRestoreFailed = "RestoreFailed"
	// ReasonProvisionerLost means the CNPG Cluster, and with it its
	// volumes and data, was deleted out of band after it had been Ready
	// (or is being deleted). What to do: annotate the PostgresCluster
	// postgres.setpoint.dev/recreate=latest-backup to restore it from its
	// latest backup, or =empty to create it empty
	// (docs/operations/failure-modes.md, "A lost CNPG Cluster").
	ReasonProvisionerLost = "ProvisionerLost"
	// ReasonClusterConflict means a CNPG Cluster of that name exists that
	// setpoint did not create; setpoint leaves it untouched. What to do:
	// delete that CNPG Cluster (its data goes with it) or create the
	// PostgresCluster under another name; setpoint never takes over a
	// Cluster it did not create.
	ReasonClusterConflict = "ClusterConflict"
	// ReasonClusterSpecInvalid means CloudNativePG's admission refused
	// the CNPG Cluster setpoint wrote (its message is quoted). What to
	// do: fix the setting CloudNativePG names, in the cluster or its
	// class.
	ReasonClusterSpecInvalid = "ClusterSpecInvalid"
	// ReasonTopologyWithoutArchive means spec.topology is set and the
	// cluster's class configures no backup.objectStore: the members of a
	// topology follow each other through their archives, so setpoint
	// writes no CNPG Cluster until there is one. What to do: use a class
	// with backup.objectStore (with the Shared layout when the sites'
	// clusters read each other's folders through their own stores).
	ReasonTopologyWithoutArchive = "TopologyWithoutArchive"
	// ReasonApplyFailed means writing the CNPG Cluster failed; it is
	// retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonApplyFailed = "ApplyFailed"
	// ReasonPostgresUnreachable means CloudNativePG reports healthy but
	// Postgres does not answer setpoint. What to do: check the primary's
	// Pod and the network between the operator and it (a NetworkPolicy
	// may block it); setpoint checks again.
	ReasonPostgresUnreachable = "PostgresUnreachable"
	// ReasonPgHBAInvalid means Postgres reports errors in the pg_hba.conf
	// it would load (quoted). What to do: fix the pgHBA line the message
	// names (by line number, with Postgres's error) before the next
	// restart, which would fail.
	ReasonPgHBAInvalid = "PgHBAInvalid"
	// ReasonUnknownParameter means postgresqlConfig names a parameter
	// Postgres does not have. What to do: fix the parameter's name in
	// postgresqlConfig, or remove it (in the cluster or its class).
	ReasonUnknownParameter = "UnknownParameter"
	// ReasonParametersPending means Postgres has not yet put in effect
	// every parameter of postgresqlConfig. What to do: wait: Postgres is
	// loading the new parameters; after 5 minutes this turns into
	// ParametersNotApplied.
	ReasonParametersPending = "ParametersPending"
	// ReasonRestartPending means a parameter needs a restart of Postgres,
	// which CloudNativePG has not done yet. What to do: wait: a parameter
	// needs a restart of Postgres, which CloudNativePG performs.
	ReasonRestartPending = "RestartPending"
	// ReasonParametersNotApplied means Postgres has not applied the named
	// parameters within the bound. What to do: the message names each
	// parameter with the value wanted and Postgres's error: correct
	// postgresqlConfig; if the value is right, read CloudNativePG's logs.
	// It is rechecked every 2 minutes.
	ReasonParametersNotApplied = "ParametersNotApplied"
)

// MonitorReady of PostgresCluster
//
// The role setpoint logs in as to check Postgres and run its SQL.
const (
	// ReasonMonitorRoleApplied means CloudNativePG applied the monitor
	// role. What to do: nothing.
	ReasonMonitorRoleApplied = "MonitorRoleApplied"
	// ReasonMonitorRoleReplayed means the cluster is a replica (in its
	// topology): role setpoint_monitor is the primary's, replayed, and
	// CloudNativePG applies no DatabaseRole on a replica, so this site's
	// monitor Secret is not published (nothing logs in with it) until
	// the cluster is promoted; True. What to do: nothing.
	ReasonMonitorRoleReplayed = "MonitorRoleReplayed"
	// ReasonMonitorRolePending means CloudNativePG has not applied the
	// monitor role yet, or a previous DatabaseRole of it is being
	// deleted. What to do: wait: CloudNativePG applies the monitor role
	// within seconds; if it does not, look at the DatabaseRole's status.
	ReasonMonitorRolePending = "MonitorRolePending"
	// ReasonMonitorRoleNotApplied means CloudNativePG could not apply the
	// monitor role (its message is quoted); it retries. What to do: fix
	// what CloudNativePG names (its message is quoted, and in the
	// DatabaseRole's status).
	ReasonMonitorRoleNotApplied = "MonitorRoleNotApplied"
	// ReasonMonitorRoleUnverified means setpoint could not check in
	// Postgres whether the monitor role exists; the next pass tries
	// again. What to do: wait: setpoint asks Postgres again on the next
	// pass; if it lasts, look at ProvisionerReady and
	// PostgresUnreachable.
	ReasonMonitorRoleUnverified = "MonitorRoleUnverified"
	// ReasonMonitorSecretConflict means the monitor role's Secret name is
	// taken by a Secret setpoint did not create. What to do: delete that
	// Secret or rename it (the message names it; setpoint never takes
	// over an object it did not create), or create the PostgresCluster
	// under another name.
	ReasonMonitorSecretConflict = "MonitorSecretConflict"
	// ReasonMonitorRoleConflict means the monitor role is managed by
	// someone else: in the CNPG Cluster's spec.managed.roles or by a
	// DatabaseRole setpoint did not create. What to do: remove the role
	// setpoint_monitor there: from the CNPG Cluster's spec.managed.roles,
	// or delete that DatabaseRole (the message names it).
	ReasonMonitorRoleConflict = "MonitorRoleConflict"
	// ReasonMonitorRoleExists means Postgres already has a role of that
	// name that setpoint did not create. What to do: drop or rename the
	// role setpoint_monitor in Postgres.
	ReasonMonitorRoleExists = "MonitorRoleExists"
	// ReasonCertAuthGroupConflict means the group role
	// setpoint_cert_auth, whose members log in by client certificate
	// only, is managed by someone else: in the CNPG Cluster's
	// spec.managed.roles or by a DatabaseRole setpoint did not create.
	// What to do: remove the role setpoint_cert_auth there: from the CNPG
	// Cluster's spec.managed.roles, or delete that DatabaseRole (the
	// message names it).
	ReasonCertAuthGroupConflict = "CertAuthGroupConflict"
	// ReasonCertAuthGroupExists means Postgres already has a role
	// setpoint_cert_auth that setpoint did not create. What to do: drop
	// or rename the role setpoint_cert_auth in Postgres.
	ReasonCertAuthGroupExists = "CertAuthGroupExists"
	// ReasonMonitorError means writing the monitor role's objects failed;
	// it is retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonMonitorError = "MonitorError"
)

// PoolerReady of PostgresCluster
const (
	// ReasonPoolersReady means every PgBouncer pooler runs. What to do:
	// nothing.
	ReasonPoolersReady = "PoolersReady"
	// ReasonPoolerProvisioning means the PgBouncer instances are not all
	// running yet. What to do: wait: PgBouncer's Deployment is starting;
	// if it lasts, look at the pooler's Pods.
	ReasonPoolerProvisioning = "PoolerProvisioning"
	// ReasonPoolerConflict means a Pooler of that name exists that
	// setpoint did not create. What to do: delete that Pooler or rename
	// it (the message names it; setpoint never takes over an object it
	// did not create), or create the PostgresCluster under another name.
	ReasonPoolerConflict = "PoolerConflict"
	// ReasonPoolerApplyFailed means writing a Pooler failed; it is
	// retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonPoolerApplyFailed = "PoolerApplyFailed"
)

// BackupReady of PostgresCluster
const (
	// ReasonBackupsScheduled means the ScheduledBackup is applied. What
	// to do: nothing.
	ReasonBackupsScheduled = "BackupsScheduled"
	// ReasonScheduledBackupInvalid means CloudNativePG refused or reports
	// invalid the ScheduledBackup (quoted). What to do: fix
	// backup.schedule (a five-field cron expression), in the cluster or
	// its class.
	ReasonScheduledBackupInvalid = "ScheduledBackupInvalid"
	// ReasonScheduledBackupConflict means a ScheduledBackup of that name
	// exists that setpoint did not create. What to do: delete that
	// ScheduledBackup or rename it (the message names it; setpoint never
	// takes over an object it did not create), or create the
	// PostgresCluster under another name.
	ReasonScheduledBackupConflict = "ScheduledBackupConflict"
	// ReasonBackupApplyFailed means writing the ScheduledBackup failed;
	// it is retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonBackupApplyFailed = "BackupApplyFailed"
)

// ConfigMapReady of PostgresCluster
const (
	// ReasonConfigMapApplied means the connection ConfigMap is written.
	// What to do: nothing.
	ReasonConfigMapApplied = "ConfigMapApplied"
	// ReasonWaitingForCA means CloudNativePG has not created its CA
	// Secret yet, which the ConfigMap publishes. What to do: wait:
	// CloudNativePG creates the cluster's CA Secret (<cluster>-ca) with
	// the cluster.
	ReasonWaitingForCA = "WaitingForCA"
	// ReasonConfigMapApplyFailed means writing the ConfigMap failed; it
	// is retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonConfigMapApplyFailed = "ConfigMapApplyFailed"
)

// PodMonitorReady of PostgresCluster
const (
	// ReasonPodMonitorApplied means the PodMonitor is applied. What to
	// do: nothing.
	ReasonPodMonitorApplied = "PodMonitorApplied"
	// ReasonMonitoringUnavailable means the PodMonitor CRD (the
	// Prometheus operator) is not installed. What to do: install the
	// Prometheus Operator's CRDs, or set monitoring.enabled: false.
	ReasonMonitoringUnavailable = "MonitoringUnavailable"
	// ReasonPodMonitorConflict means a PodMonitor of that name exists
	// that setpoint did not create. What to do: delete that PodMonitor or
	// rename it (the message names it; setpoint never takes over an
	// object it did not create), or create the PostgresCluster under
	// another name.
	ReasonPodMonitorConflict = "PodMonitorConflict"
	// ReasonPodMonitorError means writing the PodMonitor failed; it is
	// retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonPodMonitorError = "PodMonitorError"
)

// MetricsServiceReady of PostgresCluster
const (
	// ReasonMetricsServiceApplied means the metrics Service is applied.
	// What to do: nothing.
	ReasonMetricsServiceApplied = "MetricsServiceApplied"
	// ReasonMetricsServiceConflict means a Service of that name exists
	// that setpoint did not create. What to do: delete that Service or
	// rename it (the message names it; setpoint never takes over an
	// object it did not create), or create the PostgresCluster under
	// another name.
	ReasonMetricsServiceConflict = "MetricsServiceConflict"
	// ReasonMetricsServiceError means writing the metrics Service failed;
	// it is retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonMetricsServiceError = "MetricsServiceError"
)

// CertificatesReady of PostgresCluster
const (
	// ReasonClientCAIsolated means client certificates are signed by the
	// cluster's own client CA alone, whose key no application is pointed
	// to, and Postgres trusts no other CA for them (seen in its TLS
	// handshake). What to do: nothing.
	ReasonClientCAIsolated = "ClientCAIsolated"
	// ReasonClientCAMoving means a new client CA is in place and the one
	// it replaces (the server CA's, on a cluster an earlier setpoint made,
	// or an expiring one) is still trusted while the certificates it
	// signed are re-issued, or until Postgres has reloaded the Secret that
	// dropped it; the message names what is still waiting.
	// Certificate logins keep working meanwhile. What to do: wait; a
	// pooler's certificate is re-signed only when CloudNativePG renews it,
	// near its expiry (the message gives the date).
	ReasonClientCAMoving = "ClientCAMoving"
	// ReasonCertificatesConflict means a Secret named like the client CA,
	// the replication certificate or the server CA copy exists that
	// setpoint did not create. What to do: delete or rename that Secret
	// (the message names it; setpoint never takes over an object it did
	// not create), or create the PostgresCluster under another name.
	ReasonCertificatesConflict = "CertificatesConflict"
	// ReasonCertificatesError means writing or reading a certificate
	// Secret failed; it is retried with backoff. What to do: wait:
	// setpoint retries with backoff; if it persists, the message quotes
	// the error to fix.
	ReasonCertificatesError = "CertificatesError"
)
