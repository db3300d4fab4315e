package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// StorageSpec sizes the volume that holds each instance's data.
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

// ObjectStoreSpec is where base backups and WAL go, through the
// barman-cloud plugin.
type ObjectStoreSpec struct {
	// destinationPath is the bucket URL, for example "s3://backups/pg".
	// +optional
	// +kubebuilder:validation:MinLength=1
	DestinationPath string `json:"destinationPath,omitempty"`

	// endpointURL overrides the object store endpoint (for S3-compatible
	// stores such as MinIO).
	// +optional
	EndpointURL string `json:"endpointURL,omitempty"`

	// credentialsSecretName is a Secret in the cluster's namespace holding
	// ACCESS_KEY_ID and ACCESS_SECRET_KEY for an S3-compatible store.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	CredentialsSecretName string `json:"credentialsSecretName,omitempty"`

	// retentionPolicy keeps backups for this long, for example "30d", "4w"
	// or "6m".
	// +optional
	// +kubebuilder:validation:Pattern=`^[1-9][0-9]*[dwm]$`
	RetentionPolicy string `json:"retentionPolicy,omitempty"`
}

// BackupSpec configures scheduled backups.
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
	Schedule string `json:"schedule,omitempty"`

	// volumeSnapshotClass enables volume-snapshot backups with this
	// VolumeSnapshotClass.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	VolumeSnapshotClass string `json:"volumeSnapshotClass,omitempty"`
}

// MonitoringSpec switches metrics collection.
type MonitoringSpec struct {
	// enabled asks CloudNativePG to create a PodMonitor for the instances.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
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
	// go up (a major upgrade) but never down.
	// +optional
	// +kubebuilder:validation:Minimum=13
	// +kubebuilder:validation:Maximum=18
	PostgresVersion *int32 `json:"postgresVersion,omitempty"`

	// imageName overrides the operand image; by default the CloudNativePG
	// image for postgresVersion is used.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	ImageName string `json:"imageName,omitempty"`

	// storage sizes the data volumes.
	// +optional
	Storage *StorageSpec `json:"storage,omitempty"`

	// resources are the CPU and memory requests and limits of each instance.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// postgresqlConfig holds postgresql.conf parameters, values as strings
	// ("200", not 200). Cluster entries override class entries key by key.
	// +optional
	PostgreSQLConfig map[string]string `json:"postgresqlConfig,omitempty"`

	// pgHBA are extra pg_hba.conf lines, appended to the class's lines.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	PgHBA []string `json:"pgHBA,omitempty"`

	// connectionPooler configures PgBouncer in front of the cluster.
	// +optional
	ConnectionPooler *ConnectionPoolerSpec `json:"connectionPooler,omitempty"`

	// backup configures scheduled backups.
	// +optional
	Backup *BackupSpec `json:"backup,omitempty"`

	// monitoring configures metrics collection.
	// +optional
	Monitoring *MonitoringSpec `json:"monitoring,omitempty"`
}
