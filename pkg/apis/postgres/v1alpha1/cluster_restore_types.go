package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// RestoreSpec creates a cluster from another cluster's backups: the newest
// base backup taken before targetTime, then its archived WAL replayed up to
// targetTime (to the end of the archive without one). It is read once, when
// CloudNativePG bootstraps the cluster, and cannot change afterwards.
type RestoreSpec struct {
	// source is the name of the cluster whose backups are restored, as it
	// appears in the object store: its status.backupStatus.serverName,
	// in this cluster's namespace (the object store's layout decides:
	// with the class's Shared layout, any namespace's),
	// which is the cluster's name unless it was itself restored under its
	// source's name. It may be this cluster's own name (re-creating a
	// deleted cluster from its backups): this cluster then archives under
	// <name>-<first 8 characters of its UID>.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Source string `json:"source"`

	// objectStoreName names a barman-cloud ObjectStore in this namespace
	// that holds source's backups, for instance the retained
	// <source>-backup of a deleted cluster, whose folders are read as
	// they are (no namespace is added). Default: this cluster's own
	// ObjectStore, <name>-backup, made from its class's backup.objectStore,
	// whose folder holds this namespace's clusters.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	ObjectStoreName string `json:"objectStoreName,omitempty"`

	// targetTime is the point in time to recover to (RFC 3339). Unset
	// means every archived change.
	// +optional
	TargetTime *metav1.Time `json:"targetTime,omitempty"`
}

// RestoreStatus says where a restored cluster's data came from.
type RestoreStatus struct {
	// source is the cluster whose backups were restored.
	Source string `json:"source"`
	// objectStore is the barman-cloud ObjectStore they were read from.
	ObjectStore string `json:"objectStore"`
	// targetTime is the point in time recovered to; unset means the end
	// of the archive.
	// +optional
	TargetTime *metav1.Time `json:"targetTime,omitempty"`
}
