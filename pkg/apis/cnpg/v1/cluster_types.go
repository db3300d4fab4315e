package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Cluster is CNPG's Postgres cluster.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ClusterSpec   `json:"spec"`
	Status ClusterStatus `json:"status,omitempty"`
}

// ClusterSpec is the subset of CNPG's cluster spec setpoint sets.
type ClusterSpec struct {
	Instances             int                          `json:"instances"`
	ImageName             string                       `json:"imageName,omitempty"`
	ImageCatalogRef       *ImageCatalogRef             `json:"imageCatalogRef,omitempty"`
	PostgresConfiguration *PostgresConfiguration       `json:"postgresql,omitempty"`
	SuperuserSecret       *LocalObjectReference        `json:"superuserSecret,omitempty"`
	EnableSuperuserAccess *bool                        `json:"enableSuperuserAccess,omitempty"`
	Storage               *StorageConfiguration        `json:"storage,omitempty"`
	Resources             *corev1.ResourceRequirements `json:"resources,omitempty"`
	Managed               *ManagedConfiguration        `json:"managed,omitempty"`
	// +listType=atomic
	Plugins    []PluginConfiguration    `json:"plugins,omitempty"`
	Monitoring *MonitoringConfiguration `json:"monitoring,omitempty"`
	Backup     *BackupConfiguration     `json:"backup,omitempty"`
	Bootstrap  *BootstrapConfiguration  `json:"bootstrap,omitempty"`
	// +listType=atomic
	ExternalClusters []ExternalCluster          `json:"externalClusters,omitempty"`
	Certificates     *CertificatesConfiguration `json:"certificates,omitempty"`
	Affinity         *AffinityConfiguration     `json:"affinity,omitempty"`
	// +listType=atomic
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	PriorityClassName         string                            `json:"priorityClassName,omitempty"`
	ServiceAccountTemplate    *ServiceAccountTemplate           `json:"serviceAccountTemplate,omitempty"`
	ReplicaCluster            *ReplicaClusterConfiguration      `json:"replica,omitempty"`
}

// ReplicaClusterConfiguration is the subset of CNPG's replica stanza
// setpoint sets: the distributed topology (self, primary, source, all
// naming externalClusters entries) and the promotion token. The cluster
// is a replica when primary is not self; enabled is never set beside
// primary (CNPG refuses both).
type ReplicaClusterConfiguration struct {
	Self           string `json:"self,omitempty"`
	Primary        string `json:"primary,omitempty"`
	Source         string `json:"source"`
	PromotionToken string `json:"promotionToken,omitempty"`
}

// ServiceAccountTemplate is the metadata CNPG merges into the
// ServiceAccount it makes for the cluster's Pods (named after the
// cluster); setpoint sets its annotations to bind a cloud identity.
type ServiceAccountTemplate struct {
	Metadata ServiceAccountMetadata `json:"metadata"`
}

// ServiceAccountMetadata is the subset of CNPG's Metadata setpoint sets.
type ServiceAccountMetadata struct {
	Annotations map[string]string `json:"annotations,omitempty"`
}

// AffinityConfiguration is the subset of CNPG's affinity setpoint sets:
// the instances' anti-affinity (on by default in CNPG, preferred, per
// node), node selector and tolerations.
type AffinityConfiguration struct {
	EnablePodAntiAffinity *bool             `json:"enablePodAntiAffinity,omitempty"`
	TopologyKey           string            `json:"topologyKey,omitempty"`
	PodAntiAffinityType   string            `json:"podAntiAffinityType,omitempty"`
	NodeSelector          map[string]string `json:"nodeSelector,omitempty"`
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// ImageCatalogRef picks the image of one major from an ImageCatalog or
// ClusterImageCatalog. CNPG's CRD refuses it beside imageName, and
// requires apiGroup postgresql.cnpg.io. The field is atomic in CNPG's
// schema: one field manager owns the whole reference.
//
// +structType=atomic
type ImageCatalogRef struct {
	APIGroup *string `json:"apiGroup,omitempty"`
	Kind     string  `json:"kind"`
	Name     string  `json:"name"`
	Major    int     `json:"major"`
}

// CertificatesConfiguration is the subset of the Cluster's certificates
// section we set: extra names for the server certificate CNPG generates,
// which PgBouncer serves too, so that clients of the pooler's Services
// can verify the host name; and the client CA and replication
// certificate setpoint makes, so that the key signing client
// certificates is not the server CA's (naming.ClientCASecret).
type CertificatesConfiguration struct {
	// +listType=atomic
	ServerAltDNSNames    []string `json:"serverAltDNSNames,omitempty"`
	ClientCASecret       string   `json:"clientCASecret,omitempty"`
	ReplicationTLSSecret string   `json:"replicationTLSSecret,omitempty"`
}

// CertificatesStatus is what CNPG uses now: the Secrets it took from the
// spec (or made), and each one's expiration.
type CertificatesStatus struct {
	ClientCASecret       string            `json:"clientCASecret,omitempty"`
	ReplicationTLSSecret string            `json:"replicationTLSSecret,omitempty"`
	ServerCASecret       string            `json:"serverCASecret,omitempty"`
	Expirations          map[string]string `json:"expirations,omitempty"`
}

// PoolerIntegrations lists the Secrets CNPG keeps for its poolers: the
// client certificates PgBouncer's auth query logs in with, signed by the
// client CA and renewed by CNPG only near their expiry.
type PoolerIntegrations struct {
	PgBouncerIntegration PgBouncerIntegrationStatus `json:"pgBouncerIntegration,omitempty"`
}

// PgBouncerIntegrationStatus names those Secrets.
type PgBouncerIntegrationStatus struct {
	// +listType=atomic
	Secrets []string `json:"secrets,omitempty"`
}

// BackupConfiguration is the subset of the Cluster's backup section we
// set: volume-snapshot backups need the snapshot class on the Cluster.
type BackupConfiguration struct {
	VolumeSnapshot *VolumeSnapshotConfiguration `json:"volumeSnapshot,omitempty"`
}

// VolumeSnapshotConfiguration names the VolumeSnapshotClass CNPG uses.
type VolumeSnapshotConfiguration struct {
	ClassName string `json:"className,omitempty"`
}

// PostgresConfiguration holds postgresql.conf and pg_hba.conf settings.
type PostgresConfiguration struct {
	Parameters map[string]string `json:"parameters,omitempty"`
	// +listType=atomic
	PgHBA []string `json:"pg_hba,omitempty"`
	// Synchronous replication: CNPG writes synchronous_standby_names from it.
	Synchronous *SynchronousReplicaConfiguration `json:"synchronous,omitempty"`
}

// SynchronousReplicaConfiguration is the subset of CNPG's synchronous
// stanza setpoint writes (method, number, dataDurability).
type SynchronousReplicaConfiguration struct {
	// any (a quorum) or first (by priority).
	Method string `json:"method"`
	Number int    `json:"number"`
	// required or preferred; CNPG's default is required.
	DataDurability string `json:"dataDurability,omitempty"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	Name string `json:"name"`
}

// StorageConfiguration sizes the data volumes.
type StorageConfiguration struct {
	Size         string  `json:"size,omitempty"`
	StorageClass *string `json:"storageClass,omitempty"`
}

// ManagedConfiguration holds the roles CNPG manages.
type ManagedConfiguration struct {
	// roles is atomic in CNPG's schema: one field manager owns the list.
	// +listType=atomic
	Roles []RoleConfiguration `json:"roles,omitempty"`
}

// EnsureOption says whether a role, database or extension should exist.
type EnsureOption string

const (
	EnsurePresent EnsureOption = "present"
	EnsureAbsent  EnsureOption = "absent"
)

// RoleConfiguration is one managed role.
type RoleConfiguration struct {
	Name            string                `json:"name"`
	Ensure          EnsureOption          `json:"ensure,omitempty"`
	Comment         string                `json:"comment,omitempty"`
	Login           *bool                 `json:"login,omitempty"`
	Inherit         *bool                 `json:"inherit,omitempty"`
	ConnectionLimit *int64                `json:"connectionLimit,omitempty"`
	PasswordSecret  *LocalObjectReference `json:"passwordSecret,omitempty"`
	// +listType=atomic
	InRoles []string `json:"inRoles,omitempty"`
}

// PluginConfiguration enables a CNPG-I plugin, such as barman-cloud.
type PluginConfiguration struct {
	Name          string            `json:"name"`
	Enabled       *bool             `json:"enabled,omitempty"`
	IsWALArchiver *bool             `json:"isWALArchiver,omitempty"`
	Parameters    map[string]string `json:"parameters,omitempty"`
}

// MonitoringConfiguration switches the PodMonitor.
type MonitoringConfiguration struct {
	EnablePodMonitor *bool `json:"enablePodMonitor,omitempty"`
}

// ClusterStatus is the subset of CNPG's cluster status setpoint reads.
// status.image (the image CNPG picked, from imageName or a catalog) is
// left out: setpoint does not need it, and test/parity holds what this
// subset decodes of real CNPG's status to its record exactly, where the
// image is the site's own.
type ClusterStatus struct {
	Phase              string             `json:"phase,omitempty"`
	PhaseReason        string             `json:"phaseReason,omitempty"`
	Instances          int                `json:"instances,omitempty"`
	ReadyInstances     int                `json:"readyInstances,omitempty"`
	CurrentPrimary     string             `json:"currentPrimary,omitempty"`
	TargetPrimary      string             `json:"targetPrimary,omitempty"`
	WriteService       string             `json:"writeService,omitempty"`
	ReadService        string             `json:"readService,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
	ManagedRolesStatus *ManagedRoles      `json:"managedRolesStatus,omitempty"`
	// HealthyPVC lists the PVCs that are neither dangling nor
	// initializing; ResizingPVC those with a resize in progress.
	HealthyPVC         []string            `json:"healthyPVC,omitempty"`
	ResizingPVC        []string            `json:"resizingPVC,omitempty"`
	Certificates       *CertificatesStatus `json:"certificates,omitempty"`
	PoolerIntegrations *PoolerIntegrations `json:"poolerIntegrations,omitempty"`
	// PGDataImageInfo is the image that last ran on the primary's data
	// directory, and its major. A spec asking for a higher major is an
	// in-place major upgrade: CNPG stops every instance, runs pg_upgrade
	// in a Job, and moves this to the new image when the Job succeeds
	// (pkg/reconciler/majorupgrade). setpoint reads the major, and the
	// image to hold while an upgrade waits for its preflight and backup.
	PGDataImageInfo *ImageInfo `json:"pgDataImageInfo,omitempty"`
	// TimelineID is the Postgres timeline; DemotionToken is published
	// when a primary of a distributed topology is demoted, and
	// LastPromotionToken is the token CNPG last promoted the cluster with.
	TimelineID         int    `json:"timelineID,omitempty"`
	DemotionToken      string `json:"demotionToken,omitempty"`
	LastPromotionToken string `json:"lastPromotionToken,omitempty"`
}

// ImageInfo is an image CNPG ran, with its Postgres major.
type ImageInfo struct {
	Image        string `json:"image"`
	MajorVersion int    `json:"majorVersion"`
}

// ConditionClusterReady is the Cluster's condition CNPG sets True
// ("ClusterIsReady") when the Cluster is healthy; its lastTransitionTime
// is when it last became so.
const ConditionClusterReady = "Ready"

// ManagedRoles reports CNPG's reconciliation of managed roles.
type ManagedRoles struct {
	// byStatus maps a status (reconciled, not-managed,
	// pending-reconciliation, reserved) to role names.
	ByStatus map[string][]string `json:"byStatus,omitempty"`
	// cannotReconcile maps a role to CNPG's error messages.
	CannotReconcile map[string][]string `json:"cannotReconcile,omitempty"`
}

// Role status keys in ManagedRoles.ByStatus.
const (
	RoleStatusReconciled            = "reconciled"
	RoleStatusNotManaged            = "not-managed"
	RoleStatusPendingReconciliation = "pending-reconciliation"
	RoleStatusReserved              = "reserved"
)

// ClusterList is a list of Clusters.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Cluster `json:"items"`
}
