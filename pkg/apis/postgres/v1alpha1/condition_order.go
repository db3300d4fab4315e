package v1alpha1

// ClusterConditions are a PostgresCluster's component conditions in
// pipeline order: the first that is not True is the one holding the
// cluster back (how the kubectl plugin explains a cluster). The controller
// checks its pipeline against this list.
var ClusterConditions = []string{
	ConditionSecretReady, ConditionObjectStoreReady, ConditionCertificatesReady, ConditionProvisionerReady, ConditionMonitorReady,
	ConditionPoolerReady, ConditionBackupReady, ConditionConfigMapReady, ConditionPodMonitorReady,
	ConditionMetricsServiceReady,
}

// DatabaseConditions are a PostgresDatabase's step conditions in pipeline
// order: Secrets first (they need nothing of the cluster), then the
// cluster's readiness, then what is built on it. The controller checks its
// pipeline against this list.
var DatabaseConditions = []string{
	ConditionSecretsReady, ConditionClusterReady, ConditionConfigMapsReady, ConditionRolesReady,
	ConditionDatabasesReady, ConditionPrivilegesReady,
}
