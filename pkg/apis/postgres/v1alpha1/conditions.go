package v1alpha1

// Conditions of PostgresCluster
//
// One condition per component of the cluster pipeline, in pipeline
// order, plus Ready. A component's condition is True once it is done;
// while one is not, the later ones say Blocked and Ready carries its
// reason and message.
const (
	// ConditionReady is True when every component is done (the phase is
	// Ready); otherwise its reason and message are those of the first
	// component that is not. What to do: read its reason below, or wait
	// for it with `kubectl wait --for=condition=Ready`.
	ConditionReady = "Ready"
	// ConditionSecretReady is True when the superuser Secret (generated,
	// or the external one named in passwordConfig) is in place, or
	// superuser access is off. What to do: when False, see its reason.
	ConditionSecretReady = "SecretReady"
	// ConditionObjectStoreReady is True when the Barman Cloud ObjectStore
	// for WAL archiving and backups is applied, or none is configured.
	// What to do: when False, see its reason.
	ConditionObjectStoreReady = "ObjectStoreReady"
	// ConditionCertificatesReady is True when the cluster's client CA
	// (<cluster>-client-ca, which signs every client certificate Postgres
	// accepts), the replication certificate and the CA certificate
	// applications are pointed to (<cluster>-server-ca) are in place.
	// What to do: when False, see its reason.
	ConditionCertificatesReady = "CertificatesReady"
	// ConditionProvisionerReady is True when the CNPG Cluster is healthy
	// and Postgres itself confirms the parameters setpoint manages.
	// What to do: when False, see its reason; CloudNativePG's own status
	// is quoted in the message.
	ConditionProvisionerReady = "ProvisionerReady"
	// ConditionMonitorReady is True when the monitor role setpoint logs
	// in as (DatabaseRole and Secret) is applied by CloudNativePG.
	// What to do: when False, see its reason.
	ConditionMonitorReady = "MonitorReady"
	// ConditionPoolerReady is True when the PgBouncer poolers run, or
	// pooling is disabled. What to do: when False, see its reason.
	ConditionPoolerReady = "PoolerReady"
	// ConditionBackupReady is True when the ScheduledBackup is applied,
	// or no schedule is set. What to do: when False, see its reason.
	ConditionBackupReady = "BackupReady"
	// ConditionConfigMapReady is True when the ConfigMap with the
	// cluster's connection info (hosts, port, CA) is written.
	// What to do: when False, see its reason.
	ConditionConfigMapReady = "ConfigMapReady"
	// ConditionPodMonitorReady is True when the PodMonitor is applied,
	// or monitoring is disabled. What to do: when False, see its reason.
	ConditionPodMonitorReady = "PodMonitorReady"
	// ConditionMetricsServiceReady is True when the metrics Service is
	// applied, or monitoring.service is off. What to do: when False, see
	// its reason.
	ConditionMetricsServiceReady = "MetricsServiceReady"
)

// Conditions of PostgresDatabase
//
// One condition per step of the database pipeline, in pipeline order,
// plus Ready: Ready is True when every step is done;
// otherwise it carries the reason of the first step that is not, and
// the later steps say Blocked.
const (
	// ConditionClusterReady is True when the PostgresCluster the
	// database lives on is Ready. What to do: when False, look at that
	// PostgresCluster's Ready condition.
	ConditionClusterReady = "ClusterReady"
	// ConditionSecretsReady is True when every role's credentials Secret
	// (generated or external) is in place. What to do: when False, see
	// its reason.
	ConditionSecretsReady = "SecretsReady"
	// ConditionConfigMapsReady is True when every database's connection
	// ConfigMap is written. What to do: when False, see its reason.
	ConditionConfigMapsReady = "ConfigMapsReady"
	// ConditionRolesReady is True when CloudNativePG applied every role
	// (DatabaseRole). What to do: when False, see its reason.
	ConditionRolesReady = "RolesReady"
	// ConditionDatabasesReady is True when CloudNativePG applied every
	// database (CNPG Database). What to do: when False, see its reason.
	ConditionDatabasesReady = "DatabasesReady"
	// ConditionPrivilegesReady is True when the privileges of the roles
	// on their databases are granted. What to do: when False, see its
	// reason.
	ConditionPrivilegesReady = "PrivilegesReady"
)

// Conditions of both kinds
//
// Present only while they have something to say.
const (
	// ConditionPasswordRotation is the state of the rotation asked for
	// by the rotate-passwords annotation, on both kinds; absent without
	// one.
	// What to do: wait for True, then remove the annotation or change it
	// for the next rotation.
	ConditionPasswordRotation = "PasswordRotation"
)

// Conditions of PostgresDatabase on a cluster of another namespace
//
// Present only while spec.clusterRef names another namespace.
const (
	// ConditionAdmitted is True while the PostgresCluster (or its class)
	// admits the database's namespace (spec.tenants); False with
	// AdmissionWithdrawn once it no longer does. What to do: when False,
	// ask the platform team to admit the namespace again, or delete the
	// PostgresDatabase.
	ConditionAdmitted = "Admitted"
)

// Conditions of PostgresCluster with a major upgrade
//
// Present from the first time postgresVersion rises above the major the
// data runs on.
const (
	// ConditionMajorUpgrade is the last major upgrade: False while it
	// runs or after it failed, True once it succeeded; status.upgrade
	// has the details. What to do: see its reason.
	ConditionMajorUpgrade = "MajorUpgrade"
)

// Retired conditions
//
// Conditions an earlier setpoint wrote. setpoint removes them from the
// status of the objects that still carry one.
const (
	// ConditionManagedRolesReady was the condition of the managedRoles
	// component of PostgresCluster, which handed out roles through the
	// CNPG Cluster's spec.managed.roles; each role is now a DatabaseRole
	// of its PostgresDatabase. What to do: alert on RolesReady of
	// PostgresDatabase instead.
	ConditionManagedRolesReady = "ManagedRolesReady"
)

// Conditions of PostgresCluster with auto-grow
//
// Present only when storage.autoGrow is enabled.
const (
	// ConditionStorageAtLimit is True when usage is over the auto-grow
	// threshold and the volume is already at autoGrow.limit. What to do:
	// raise the limit or free space.
	ConditionStorageAtLimit = "StorageAtLimit"
)
