package v1alpha1

// Condition types of PostgresCluster: one per component plus Ready.
const (
	ConditionReady            = "Ready"
	ConditionSecretReady      = "SecretReady"
	ConditionObjectStoreReady = "ObjectStoreReady"
	ConditionProvisionerReady = "ProvisionerReady"
	ConditionMonitorReady     = "MonitorReady"
	ConditionPoolerReady      = "PoolerReady"
	ConditionBackupReady      = "BackupReady"
	ConditionConfigMapReady   = "ConfigMapReady"
	ConditionPodMonitorReady  = "PodMonitorReady"
)

// Condition types of PostgresDatabase, in pipeline order, plus Ready.
const (
	ConditionClusterReady    = "ClusterReady"
	ConditionSecretsReady    = "SecretsReady"
	ConditionConfigMapsReady = "ConfigMapsReady"
	ConditionRolesReady      = "RolesReady"
	ConditionDatabasesReady  = "DatabasesReady"
	ConditionPrivilegesReady = "PrivilegesReady"
)

// ConditionPasswordRotation, on both kinds, reports the rotation asked
// for by the rotate-passwords annotation; absent without one.
const ConditionPasswordRotation = "PasswordRotation"
