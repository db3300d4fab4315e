package v1alpha1

// The credential forms of an object store other than S3 access keys
// (credentialsSecretName). setpoint writes each into the barman-cloud
// ObjectStore under the plugin's own field names, so a form here is one
// the plugin's documentation describes. Secrets they name are read by the
// plugin in the cluster's namespace, never by setpoint.

// S3CredentialsSpec is S3 without access keys: barman-cloud takes the
// AWS identity the Pod is given (IRSA's web identity token, or EKS Pod
// Identity's credentials endpoint), through the AWS SDK's default chain.
//
// +kubebuilder:validation:XValidation:rule="self.inheritFromIAMRole",message="s3Credentials.inheritFromIAMRole must be true: S3 access keys go in backup.objectStore.credentialsSecretName",fieldPath=".inheritFromIAMRole"
type S3CredentialsSpec struct {
	// inheritFromIAMRole: the instances and the recovery Job use the IAM
	// role bound to their ServiceAccount. Must be true.
	InheritFromIAMRole bool `json:"inheritFromIAMRole"`
}

// AzureCredentialsSpec is one Azure Blob Storage credential form: a
// storage account key, a SAS token (each with the account's name), or
// the Pods' Azure identity. The destinationPath is
// https://<account>.blob.core.windows.net/<container>/<path>.
//
// +kubebuilder:validation:XValidation:rule="[has(self.storageKey), has(self.storageSasToken), has(self.inheritFromAzureAD) && self.inheritFromAzureAD].filter(x, x).size() == 1",message="azureCredentials takes exactly one of storageKey, storageSasToken and inheritFromAzureAD: true"
// +kubebuilder:validation:XValidation:rule="has(self.storageAccount) == (has(self.storageKey) || has(self.storageSasToken))",message="azureCredentials.storageAccount goes with storageKey or storageSasToken, and only with them: with inheritFromAzureAD the account is the destinationPath's host",fieldPath=".storageAccount"
type AzureCredentialsSpec struct {
	// storageAccount is the storage account's name, a key of a Secret in
	// the cluster's namespace; with storageKey or storageSasToken.
	// +optional
	StorageAccount *SecretKeyRef `json:"storageAccount,omitempty"`

	// storageKey is one of the storage account's access keys. It reaches
	// every container of the account.
	// +optional
	StorageKey *SecretKeyRef `json:"storageKey,omitempty"`

	// storageSasToken is a shared access signature, which can be limited
	// to one container, to the operations barman-cloud needs, and in time.
	// +optional
	StorageSasToken *SecretKeyRef `json:"storageSasToken,omitempty"`

	// inheritFromAzureAD: barman-cloud authenticates as the Pods' managed
	// identity (Azure's ManagedIdentityCredential: the node's identity
	// through the instance metadata service, or a workload identity
	// token when the Pod has one).
	// +optional
	InheritFromAzureAD bool `json:"inheritFromAzureAD,omitempty"`
}

// GoogleCredentialsSpec is one Google Cloud Storage credential form: a
// service-account key, or GKE workload identity. The destinationPath is
// gs://<bucket>/<path>.
//
// +kubebuilder:validation:XValidation:rule="has(self.applicationCredentials) != (has(self.gkeEnvironment) && self.gkeEnvironment)",message="googleCredentials takes exactly one of applicationCredentials and gkeEnvironment: true"
type GoogleCredentialsSpec struct {
	// applicationCredentials is a service account's JSON key, a key of a
	// Secret in the cluster's namespace.
	// +optional
	ApplicationCredentials *SecretKeyRef `json:"applicationCredentials,omitempty"`

	// gkeEnvironment: barman-cloud uses the Google identity GKE's metadata
	// server gives the Pod's ServiceAccount (workload identity).
	// +optional
	GKEEnvironment bool `json:"gkeEnvironment,omitempty"`
}
