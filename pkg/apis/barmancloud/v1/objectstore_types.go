package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ObjectStore is where the barman-cloud plugin keeps backups and WAL.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type ObjectStore struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ObjectStoreSpec   `json:"spec"`
	Status ObjectStoreStatus `json:"status,omitempty"`
}

// ObjectStoreSpec is the subset setpoint sets.
type ObjectStoreSpec struct {
	Configuration   BarmanObjectStoreConfiguration `json:"configuration"`
	RetentionPolicy string                         `json:"retentionPolicy,omitempty"`
}

// BarmanObjectStoreConfiguration locates the store. serverName is forbidden
// here by the plugin: it belongs in the Cluster's plugin parameters.
type BarmanObjectStoreConfiguration struct {
	DestinationPath string             `json:"destinationPath"`
	EndpointURL     string             `json:"endpointURL,omitempty"`
	EndpointCA      *SecretKeySelector `json:"endpointCA,omitempty"`
	// The credentials: barman-cloud takes exactly one of the three.
	S3Credentials     *S3Credentials           `json:"s3Credentials,omitempty"`
	AzureCredentials  *AzureCredentials        `json:"azureCredentials,omitempty"`
	GoogleCredentials *GoogleCredentials       `json:"googleCredentials,omitempty"`
	Wal               *WalBackupConfiguration  `json:"wal,omitempty"`
	Data              *DataBackupConfiguration `json:"data,omitempty"`
}

// S3Credentials points at the keys of an S3-compatible store.
type S3Credentials struct {
	AccessKeyID        *SecretKeySelector `json:"accessKeyId,omitempty"`
	SecretAccessKey    *SecretKeySelector `json:"secretAccessKey,omitempty"`
	Region             *SecretKeySelector `json:"region,omitempty"`
	InheritFromIAMRole *bool              `json:"inheritFromIAMRole,omitempty"`
}

// AzureCredentials reaches Azure Blob Storage: a storage account with a
// key or a SAS token, or the Pod's Azure identity (inheritFromAzureAD).
type AzureCredentials struct {
	StorageAccount     *SecretKeySelector `json:"storageAccount,omitempty"`
	StorageKey         *SecretKeySelector `json:"storageKey,omitempty"`
	StorageSasToken    *SecretKeySelector `json:"storageSasToken,omitempty"`
	InheritFromAzureAD *bool              `json:"inheritFromAzureAD,omitempty"`
}

// GoogleCredentials reaches Google Cloud Storage: a service account's
// JSON key, or GKE's workload identity (gkeEnvironment).
type GoogleCredentials struct {
	ApplicationCredentials *SecretKeySelector `json:"applicationCredentials,omitempty"`
	GKEEnvironment         *bool              `json:"gkeEnvironment,omitempty"`
}

// SecretKeySelector names one key of a Secret.
type SecretKeySelector struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

// WalBackupConfiguration tunes WAL archiving.
type WalBackupConfiguration struct {
	Compression string `json:"compression,omitempty"`
	MaxParallel *int   `json:"maxParallel,omitempty"`
}

// DataBackupConfiguration tunes base backups.
type DataBackupConfiguration struct {
	Compression string `json:"compression,omitempty"`
	Jobs        *int32 `json:"jobs,omitempty"`
}

// ObjectStoreStatus is what the plugin reports.
type ObjectStoreStatus struct {
	// serverRecoveryWindow maps a server name to its recovery window.
	ServerRecoveryWindow map[string]RecoveryWindow `json:"serverRecoveryWindow,omitempty"`
}

// RecoveryWindow is the span a server can be recovered to.
type RecoveryWindow struct {
	FirstRecoverabilityPoint *metav1.Time `json:"firstRecoverabilityPoint,omitempty"`
	LastSuccessfulBackupTime *metav1.Time `json:"lastSuccessfulBackupTime,omitempty"`
	LastFailedBackupTime     *metav1.Time `json:"lastFailedBackupTime,omitempty"`
}

// ObjectStoreList is a list of ObjectStores.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type ObjectStoreList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ObjectStore `json:"items"`
}
