package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// StorageSpec sizes the volume that holds each instance's data.
//
// +kubebuilder:validation:XValidation:rule="!has(self.size) || quantity(string(self.size)).isGreaterThan(quantity('0'))",message="storage.size must be greater than zero",fieldPath=".size"
// +kubebuilder:validation:XValidation:rule="!has(self.size) || !has(self.autoGrow) || !has(self.autoGrow.limit) || quantity(string(self.autoGrow.limit)).compareTo(quantity(string(self.size))) >= 0",message="storage.autoGrow.limit must be at least storage.size",fieldPath=".autoGrow.limit"
type StorageSpec struct {
	// size of each instance's data volume, for example "10Gi". It can grow
	// but never shrink.
	// +optional
	Size *resource.Quantity `json:"size,omitempty"`

	// storageClass is the StorageClass of the data volumes; empty means the
	// cluster's default StorageClass.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	StorageClass *string `json:"storageClass,omitempty"`

	// autoGrow raises the volume size when the data crosses a threshold,
	// up to a limit.
	// +optional
	AutoGrow *AutoGrowSpec `json:"autoGrow,omitempty"`
}

// PoolMode is PgBouncer's pooling mode.
// +kubebuilder:validation:Enum=session;transaction
type PoolMode string

const (
	PoolModeSession     PoolMode = "session"
	PoolModeTransaction PoolMode = "transaction"
)

// ConnectionPoolerSpec configures the PgBouncer poolers that front the
// cluster: one for the read-write service and one for the read-only service.
type ConnectionPoolerSpec struct {
	// enabled turns the poolers on or off.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// instances is the number of PgBouncer instances per pooler.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	Instances *int32 `json:"instances,omitempty"`

	// poolMode is PgBouncer's pool_mode: session or transaction.
	// +optional
	PoolMode PoolMode `json:"poolMode,omitempty"`

	// parameters are PgBouncer settings such as max_client_conn and
	// default_pool_size; values are strings, as CloudNativePG expects.
	// +optional
	Parameters map[string]string `json:"parameters,omitempty"`

	// placement says where the PgBouncer Pods run, as placement says it
	// for the instances: antiAffinity keeps a pooler's own Pods apart
	// (by topologyKey, default the node); unset, a pooler's Pods have no
	// anti-affinity (CloudNativePG's default for poolers).
	// +optional
	Placement *PlacementSpec `json:"placement,omitempty"`
}

// SecretKeyRef names one key of a Secret in the object's namespace.
type SecretKeyRef struct {
	// name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// key inside the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// ArchiveLayout is how the clusters of one object store share it.
type ArchiveLayout string

const (
	// ArchiveLayoutNamespaced puts the namespace into every folder.
	ArchiveLayoutNamespaced ArchiveLayout = "Namespaced"
	// ArchiveLayoutShared is one folder name space across namespaces.
	ArchiveLayoutShared ArchiveLayout = "Shared"
)

// ObjectStoreSpec is where base backups and WAL go, through the
// barman-cloud plugin, and how the instances reach it: one credential form
// (docs/guides/backup-and-restore.md#object-stores-and-their-credentials),
// which CEL holds to exactly one once destinationPath is set:
// credentialsSecretName (S3 access keys), s3Credentials (the Pods' AWS
// IAM role), azureCredentials or googleCredentials.
//
// +kubebuilder:validation:XValidation:rule="[has(self.credentialsSecretName) && size(self.credentialsSecretName) > 0, has(self.s3Credentials), has(self.azureCredentials), has(self.googleCredentials)].filter(x, x).size() <= 1",message="backup.objectStore takes one credential form: credentialsSecretName (S3 access keys), s3Credentials (an IAM role), azureCredentials or googleCredentials"
// +kubebuilder:validation:XValidation:rule="!has(self.destinationPath) || [has(self.credentialsSecretName) && size(self.credentialsSecretName) > 0, has(self.s3Credentials), has(self.azureCredentials), has(self.googleCredentials)].exists(x, x)",message="backup.objectStore.destinationPath needs one credential form: credentialsSecretName (S3 access keys), s3Credentials (an IAM role), azureCredentials or googleCredentials"
// +kubebuilder:validation:XValidation:rule="!has(self.endpointCA) || !has(self.googleCredentials)",message="backup.objectStore.endpointCA is the CA of an S3- or Azure-compatible endpoint: barman-cloud does not use it for Google Cloud Storage",fieldPath=".endpointCA"
// +kubebuilder:validation:XValidation:rule="!has(self.serviceAccountAnnotations) || has(self.s3Credentials) || (has(self.azureCredentials) && has(self.azureCredentials.inheritFromAzureAD) && self.azureCredentials.inheritFromAzureAD) || (has(self.googleCredentials) && has(self.googleCredentials.gkeEnvironment) && self.googleCredentials.gkeEnvironment)",message="backup.objectStore.serviceAccountAnnotations bind a cloud identity: they go with s3Credentials.inheritFromIAMRole, azureCredentials.inheritFromAzureAD or googleCredentials.gkeEnvironment",fieldPath=".serviceAccountAnnotations"
type ObjectStoreSpec struct {
	// destinationPath is the bucket URL, for example "s3://backups/pg".
	// Each cluster archives in a folder under it: see layout.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.matches('(^|/)[.][.]?(/|$)')",message="destinationPath must not contain . or .. segments: they would reach another folder of the store"
	DestinationPath string `json:"destinationPath,omitempty"`

	// layout says how the clusters using this store share it, and so
	// whose backups a restore can read.
	//   - Namespaced (the default): each cluster archives under
	//     <destinationPath>/<namespace>/<serverName>, and a restore reads
	//     only folders of its own namespace. Credentials can be scoped
	//     per namespace by prefix.
	//   - Shared: <destinationPath>/<serverName>, one folder name space
	//     for every namespace of the class: a restore may read any
	//     namespace's cluster by name, and of two clusters with one
	//     serverName the second is refused. Only a PostgresClusterClass
	//     can choose it.
	// +optional
	// +kubebuilder:validation:Enum=Namespaced;Shared
	Layout ArchiveLayout `json:"layout,omitempty"`

	// endpointURL overrides the object store endpoint (for S3-compatible
	// stores such as MinIO).
	// +optional
	EndpointURL string `json:"endpointURL,omitempty"`

	// endpointCA is the CA bundle (PEM) that signed the endpoint's TLS
	// certificate, for an S3- or Azure-compatible store whose certificate
	// no public CA signed: a key of a Secret in the cluster's namespace,
	// which the barman-cloud plugin mounts into the instances and the
	// recovery Job (barman-cloud then verifies the endpoint against it
	// alone). Not for Google Cloud Storage.
	// +optional
	EndpointCA *SecretKeyRef `json:"endpointCA,omitempty"`

	// credentialsSecretName is a Secret in the cluster's namespace holding
	// ACCESS_KEY_ID and ACCESS_SECRET_KEY for an S3-compatible store: the
	// S3 access-key credential form.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	CredentialsSecretName string `json:"credentialsSecretName,omitempty"`

	// s3Credentials is the S3 credential form without keys: the
	// instances use the AWS IAM role their ServiceAccount is given (IRSA
	// or EKS Pod Identity).
	// +optional
	S3Credentials *S3CredentialsSpec `json:"s3Credentials,omitempty"`

	// azureCredentials is the Azure Blob Storage credential form: a
	// storage account key, a SAS token, or the Pods' Azure identity.
	// +optional
	AzureCredentials *AzureCredentialsSpec `json:"azureCredentials,omitempty"`

	// googleCredentials is the Google Cloud Storage credential form: a
	// service-account key, or GKE workload identity.
	// +optional
	GoogleCredentials *GoogleCredentialsSpec `json:"googleCredentials,omitempty"`

	// serviceAccountAnnotations are put on the ServiceAccount
	// CloudNativePG makes for the cluster's Pods (named after the
	// cluster), to bind the cloud identity an identity form uses, for
	// example eks.amazonaws.com/role-arn (IRSA) or
	// iam.gke.io/gcp-service-account (GKE). Only with an identity form.
	// Pods read them when they start.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	ServiceAccountAnnotations map[string]string `json:"serviceAccountAnnotations,omitempty"`

	// retentionPolicy keeps backups for this long, for example "30d", "4w"
	// or "6m".
	// +optional
	// +kubebuilder:validation:Pattern=`^[1-9][0-9]*[dwm]$`
	RetentionPolicy string `json:"retentionPolicy,omitempty"`
}

// BackupSpec configures backups: with an object store, continuous WAL
// archiving, on-demand backups and restores from it; with a schedule, also
// scheduled backups.
type BackupSpec struct {
	// objectStore sends backups and WAL to object storage.
	// +optional
	ObjectStore *ObjectStoreSpec `json:"objectStore,omitempty"`

	// schedule is a standard five-field cron expression (minute hour
	// day-of-month month day-of-week), for example "0 2 * * *" for 02:00
	// every day. setpoint converts it to the six-field form CloudNativePG
	// uses; a six-field expression is refused to avoid the ambiguity.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:XValidation:rule="self.split(' ').filter(f, f != '').size() == 5",message="schedule must be a five-field cron expression (minute hour day-of-month month day-of-week)"
	// +kubebuilder:validation:XValidation:rule=`self.split(' ').filter(x, x != '').size() != 5 || self.split(' ').filter(x, x != '')[0].matches('^([*]|(0?[0-9]|[1-5][0-9])(-(0?[0-9]|[1-5][0-9]))?)(/[1-9][0-9]*)?(,([*]|(0?[0-9]|[1-5][0-9])(-(0?[0-9]|[1-5][0-9]))?)(/[1-9][0-9]*)?)*$')`,message="schedule minute must be 0-59, *, a range a-b, a step /n, or a comma-separated list of these"
	// +kubebuilder:validation:XValidation:rule=`self.split(' ').filter(x, x != '').size() != 5 || self.split(' ').filter(x, x != '')[1].matches('^([*]|(0?[0-9]|1[0-9]|2[0-3])(-(0?[0-9]|1[0-9]|2[0-3]))?)(/[1-9][0-9]*)?(,([*]|(0?[0-9]|1[0-9]|2[0-3])(-(0?[0-9]|1[0-9]|2[0-3]))?)(/[1-9][0-9]*)?)*$')`,message="schedule hour must be 0-23, *, a range a-b, a step /n, or a comma-separated list of these"
	// +kubebuilder:validation:XValidation:rule=`self.split(' ').filter(x, x != '').size() != 5 || self.split(' ').filter(x, x != '')[2].matches('^([*]|(0?[1-9]|[12][0-9]|3[01])(-(0?[1-9]|[12][0-9]|3[01]))?)(/[1-9][0-9]*)?(,([*]|(0?[1-9]|[12][0-9]|3[01])(-(0?[1-9]|[12][0-9]|3[01]))?)(/[1-9][0-9]*)?)*$')`,message="schedule day-of-month must be 1-31, *, a range a-b, a step /n, or a comma-separated list of these"
	// +kubebuilder:validation:XValidation:rule=`self.split(' ').filter(x, x != '').size() != 5 || self.split(' ').filter(x, x != '')[3].matches('^([*]|(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))(-(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))?)(/[1-9][0-9]*)?(,([*]|(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))(-(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))?)(/[1-9][0-9]*)?)*$')`,message="schedule month must be 1-12 or jan-dec, *, a range a-b, a step /n, or a comma-separated list of these"
	// +kubebuilder:validation:XValidation:rule=`self.split(' ').filter(x, x != '').size() != 5 || self.split(' ').filter(x, x != '')[4].matches('^([*]|([0-6]|(?i:sun|mon|tue|wed|thu|fri|sat))(-([0-6]|(?i:sun|mon|tue|wed|thu|fri|sat)))?)(/[1-9][0-9]*)?(,([*]|([0-6]|(?i:sun|mon|tue|wed|thu|fri|sat))(-([0-6]|(?i:sun|mon|tue|wed|thu|fri|sat)))?)(/[1-9][0-9]*)?)*$')`,message="schedule day-of-week must be 0-6 or sun-sat, *, a range a-b, a step /n, or a comma-separated list of these"
	Schedule string `json:"schedule,omitempty"`

	// volumeSnapshotClass enables volume-snapshot backups with this
	// VolumeSnapshotClass.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	VolumeSnapshotClass string `json:"volumeSnapshotClass,omitempty"`
}

// MonitoringSpec switches metrics collection. A cluster's fields override
// its class's one by one.
type MonitoringSpec struct {
	// enabled makes setpoint keep a Prometheus Operator PodMonitor
	// <cluster>-metrics that scrapes the instances' metrics port (the
	// Prometheus Operator's CRD must be installed).
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// service makes setpoint keep a headless Service <cluster>-metrics
	// over the instances' metrics port (9187), annotated for the
	// prometheus.io/scrape, prometheus.io/port and prometheus.io/path
	// discovery convention: for a Prometheus without the Prometheus
	// Operator, or anything else that scrapes a Service's endpoints.
	// Independent of enabled.
	// +optional
	Service *bool `json:"service,omitempty"`
}

// ImageCatalogKind is the kind of a CloudNativePG image catalog.
type ImageCatalogKind string

const (
	// ImageCatalogKindCluster is a ClusterImageCatalog: one catalog for
	// every namespace, which a platform team publishes.
	ImageCatalogKindCluster ImageCatalogKind = "ClusterImageCatalog"
	// ImageCatalogKindNamespaced is an ImageCatalog in the cluster's own
	// namespace.
	ImageCatalogKindNamespaced ImageCatalogKind = "ImageCatalog"
)

// ImageCatalogRef names a CloudNativePG ClusterImageCatalog or
// ImageCatalog (group postgresql.cnpg.io). The major is not part of it:
// it is the cluster's postgresVersion, so a major upgrade stays one field.
//
// +kubebuilder:validation:XValidation:rule="self.kind in ['ClusterImageCatalog', 'ImageCatalog']",message="imageCatalog.kind must be ClusterImageCatalog or ImageCatalog: CloudNativePG resolves images from these two kinds only",fieldPath=".kind"
type ImageCatalogRef struct {
	// kind is ClusterImageCatalog (cluster-scoped) or ImageCatalog (in
	// the cluster's namespace).
	// +kubebuilder:validation:MaxLength=64
	Kind ImageCatalogKind `json:"kind"`

	// name of the catalog.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ClusterSettings are the values a PostgresClusterClass presets and a
// PostgresCluster may override field by field.
type ClusterSettings struct {
	// instances is the number of Postgres instances (one primary, the rest
	// replicas).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	Instances *int32 `json:"instances,omitempty"`

	// postgresVersion is the Postgres major version, for example 16. It can
	// go up (a major upgrade) but never down. 15 to 18: CloudNativePG 1.30
	// runs 14 to 18, PostgreSQL 14 reached its end of life in November
	// 2026, and on 14 schema public of every database belongs to the
	// superuser, so a database could not be closed to other tenants.
	// +optional
	// +kubebuilder:validation:Minimum=15
	// +kubebuilder:validation:Maximum=18
	PostgresVersion *int32 `json:"postgresVersion,omitempty"`

	// imageName overrides the operand image; by default the CloudNativePG
	// image for postgresVersion is used. For a one-off image: a fleet's
	// pinned images belong in an image catalog (imageCatalog). A class or
	// a cluster sets one of the two; a cluster's choice replaces its
	// class's.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	ImageName string `json:"imageName,omitempty"`

	// imageCatalog names a CloudNativePG image catalog: the CNPG Cluster
	// then runs the catalog's image for postgresVersion, so every
	// instance runs the exact image the catalog pins, and changing the
	// catalog's image for a major is the minor-upgrade path. A catalog
	// without postgresVersion's major is reported by CloudNativePG, and
	// the cluster is not Ready until the catalog has it.
	// +optional
	ImageCatalog *ImageCatalogRef `json:"imageCatalog,omitempty"`

	// storage sizes the data volumes.
	// +optional
	Storage *StorageSpec `json:"storage,omitempty"`

	// resources are the CPU and memory requests and limits of each instance.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// postgresqlConfig holds postgresql.conf parameters, values as strings
	// ("200", not 200). Cluster entries override class entries key by key.
	// Parameters CloudNativePG manages (FixedParameters: port, ssl,
	// archive_mode, logging, recovery, ...) are refused in any spelling,
	// and wal_level must stay replica or logical.
	// +optional
	// +kubebuilder:validation:MaxProperties=256
	// +kubebuilder:validation:XValidation:rule=`self.all(k, k.matches('^[A-Za-z_][A-Za-z0-9_$]*([.][A-Za-z_][A-Za-z0-9_$]*)?$'))`,message="postgresqlConfig keys must be Postgres parameter names (letters, digits, _ and $, at most one dot)"
	// +kubebuilder:validation:XValidation:rule=`self.all(k, !(k.lowerAscii() in ['allow_system_table_mods', 'archive_cleanup_command', 'archive_command', 'archive_mode', 'bonjour', 'bonjour_name', 'cluster_name', 'config_file', 'data_directory', 'data_sync_retry', 'event_source', 'external_pid_file', 'hba_file', 'hot_standby', 'ident_file', 'include', 'include_dir', 'include_if_exists', 'jit_provider', 'listen_addresses', 'log_destination', 'log_directory', 'log_file_mode', 'log_filename', 'log_rotation_age', 'log_rotation_size', 'log_truncate_on_rotation', 'logging_collector', 'pg_failover_slots.primary_dsn', 'pg_failover_slots.standby_slot_names', 'port', 'primary_conninfo', 'primary_slot_name', 'promote_trigger_file', 'recovery_end_command', 'recovery_min_apply_delay', 'recovery_target', 'recovery_target_action', 'recovery_target_inclusive', 'recovery_target_lsn', 'recovery_target_name', 'recovery_target_time', 'recovery_target_timeline', 'recovery_target_xid', 'restart_after_crash', 'restore_command', 'shared_preload_libraries', 'ssl', 'ssl_ca_file', 'ssl_cert_file', 'ssl_crl_file', 'ssl_dh_params_file', 'ssl_ecdh_curve', 'ssl_key_file', 'ssl_passphrase_command', 'ssl_passphrase_command_supports_reload', 'ssl_prefer_server_ciphers', 'stats_temp_directory', 'synchronized_standby_slots', 'synchronous_standby_names', 'syslog_facility', 'syslog_ident', 'syslog_sequence_numbers', 'syslog_split_messages', 'temp_tablespaces', 'unix_socket_directories', 'unix_socket_group', 'unix_socket_permissions']))`,messageExpression=`self.filter(k, k.lowerAscii() in ['allow_system_table_mods', 'archive_cleanup_command', 'archive_command', 'archive_mode', 'bonjour', 'bonjour_name', 'cluster_name', 'config_file', 'data_directory', 'data_sync_retry', 'event_source', 'external_pid_file', 'hba_file', 'hot_standby', 'ident_file', 'include', 'include_dir', 'include_if_exists', 'jit_provider', 'listen_addresses', 'log_destination', 'log_directory', 'log_file_mode', 'log_filename', 'log_rotation_age', 'log_rotation_size', 'log_truncate_on_rotation', 'logging_collector', 'pg_failover_slots.primary_dsn', 'pg_failover_slots.standby_slot_names', 'port', 'primary_conninfo', 'primary_slot_name', 'promote_trigger_file', 'recovery_end_command', 'recovery_min_apply_delay', 'recovery_target', 'recovery_target_action', 'recovery_target_inclusive', 'recovery_target_lsn', 'recovery_target_name', 'recovery_target_time', 'recovery_target_timeline', 'recovery_target_xid', 'restart_after_crash', 'restore_command', 'shared_preload_libraries', 'ssl', 'ssl_ca_file', 'ssl_cert_file', 'ssl_crl_file', 'ssl_dh_params_file', 'ssl_ecdh_curve', 'ssl_key_file', 'ssl_passphrase_command', 'ssl_passphrase_command_supports_reload', 'ssl_prefer_server_ciphers', 'stats_temp_directory', 'synchronized_standby_slots', 'synchronous_standby_names', 'syslog_facility', 'syslog_ident', 'syslog_sequence_numbers', 'syslog_split_messages', 'temp_tablespaces', 'unix_socket_directories', 'unix_socket_group', 'unix_socket_permissions'])[0] + ': CloudNativePG manages this parameter, it cannot be set in postgresqlConfig'`
	// +kubebuilder:validation:XValidation:rule=`self.all(k, self.filter(j, j.lowerAscii() == k.lowerAscii()).size() == 1)`,message="postgresqlConfig keys must differ in more than case: Postgres reads work_mem and WORK_MEM as one parameter"
	// +kubebuilder:validation:XValidation:rule=`self.all(k, k.lowerAscii() != 'wal_level' || self[k] in ['replica', 'logical'])`,message="wal_level must be replica or logical: CloudNativePG archives WAL and streams to replicas"
	PostgreSQLConfig map[string]string `json:"postgresqlConfig,omitempty"`

	// pgHBA are extra pg_hba.conf lines, appended to the class's lines:
	// "local DATABASE USER METHOD [OPTIONS]",
	// "host|hostssl|hostnossl|hostgssenc|hostnogssenc DATABASE USER ADDRESS METHOD [OPTIONS]"
	// or "include|include_if_exists|include_dir FILE". What only Postgres
	// can judge (an unknown method, a bad address) is reported in status
	// with reason PgHBAInvalid.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule=`self.all(l, !l.contains('\n') && !l.contains('\r'))`,message="pgHBA lines must not contain line breaks: give one entry per line"
	// +kubebuilder:validation:XValidation:rule=`self.all(l, l.matches('^[ \t]*(local([ \t]+[^ \t]+){3,}|host(ssl|nossl|gssenc|nogssenc)?([ \t]+[^ \t]+){4,}|include(_if_exists|_dir)?[ \t]+[^ \t]+)[ \t]*$'))`,messageExpression=`'pgHBA line "' + self.filter(l, !l.matches('^[ \t]*(local([ \t]+[^ \t]+){3,}|host(ssl|nossl|gssenc|nogssenc)?([ \t]+[^ \t]+){4,}|include(_if_exists|_dir)?[ \t]+[^ \t]+)[ \t]*$'))[0] + '" must be "local DATABASE USER METHOD", "host|hostssl|hostnossl|hostgssenc|hostnogssenc DATABASE USER ADDRESS METHOD" (options may follow) or "include|include_if_exists|include_dir FILE"'`
	PgHBA []string `json:"pgHBA,omitempty"`

	// placement says where the instances run: anti-affinity, node
	// selector, tolerations, topology spread and priority class.
	// +optional
	Placement *PlacementSpec `json:"placement,omitempty"`

	// durability says whether standbys confirm each commit (synchronous
	// replication) and what commits do when standbys are missing.
	// +optional
	Durability *DurabilitySpec `json:"durability,omitempty"`

	// connectionPooler configures PgBouncer in front of the cluster.
	// +optional
	ConnectionPooler *ConnectionPoolerSpec `json:"connectionPooler,omitempty"`

	// backup configures WAL archiving, scheduled and on-demand backups.
	// +optional
	Backup *BackupSpec `json:"backup,omitempty"`

	// monitoring configures metrics collection.
	// +optional
	Monitoring *MonitoringSpec `json:"monitoring,omitempty"`

	// databaseDefaults are the defaults of every database on the
	// cluster, each of which a PostgresDatabase's database may override:
	// on a shared cluster, the platform's limits for its tenants.
	// +optional
	DatabaseDefaults *DatabaseDefaults `json:"databaseDefaults,omitempty"`

	// superuserAccess turns on CloudNativePG's enableSuperuserAccess: the
	// postgres superuser may log in over the network with the password of
	// the superuser Secret, which setpoint then generates (or takes from
	// passwordConfig.superuserExternalSecretRef). Off by default, as in
	// CloudNativePG: setpoint does its own work as less privileged roles,
	// a database's <db>_admin for its privileges and the cluster's
	// setpoint_monitor for checks and the collector. Unset, a cluster
	// whose CNPG Cluster already has superuser access (one created by an
	// earlier setpoint) keeps it until this is set to false, and a cluster
	// that names an external superuser Secret has it. With access off
	// there is no superuser Secret (a generated one is deleted once the
	// CNPG Cluster no longer uses it), and the pg_hba.conf check, which
	// only a superuser can make, is skipped.
	// +optional
	SuperuserAccess *bool `json:"superuserAccess,omitempty"`

	// tenants are the namespaces besides its own that may place
	// PostgresDatabases on the cluster; unset, its own namespace only. A
	// cluster's tenants replace its class's whole.
	// +optional
	Tenants *TenantsSpec `json:"tenants,omitempty"`
}
