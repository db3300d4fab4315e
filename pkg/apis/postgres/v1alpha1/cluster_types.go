package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// PostgresCluster is a Postgres cluster run by CloudNativePG: setpoint
// creates the CNPG Cluster, its poolers, WAL archiving and backups, the
// setpoint_monitor role, a connection-info ConfigMap and, only with
// superuserAccess, a superuser Secret from it. The roles of its databases
// belong to their PostgresDatabases (one CNPG DatabaseRole each).
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=pgc,categories=setpoint;postgres
// +kubebuilder:printcolumn:name="Class",type=string,JSONPath=`.spec.class`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyInstances`,description="Ready instances"
// +kubebuilder:printcolumn:name="Instances",type=integer,JSONPath=`.status.instances`
// +kubebuilder:printcolumn:name="Primary",type=string,JSONPath=`.status.currentPrimary`,priority=1
// +kubebuilder:printcolumn:name="Used%",type=integer,JSONPath=`.status.postgres.usedPercent`,description="Share of the data volume in use at the last recorded sample"
// +kubebuilder:printcolumn:name="Backup",type=string,JSONPath=`.status.conditions[?(@.type=="BackupHealthy")].reason`,description="The BackupHealthy condition's reason: WAL archiving and base backups (a cluster whose backups fail stays Ready)"
// +kubebuilder:printcolumn:name="Role",type=string,JSONPath=`.status.topology.role`,priority=1,description="Primary or Replica in a topology of sites"
// +kubebuilder:printcolumn:name="Upgrade",type=string,JSONPath=`.status.upgrade.phase`,priority=1,description="The last major upgrade's phase"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.spec.postgresVersion) || (has(self.spec.postgresVersion) && (self.spec.postgresVersion >= oldSelf.spec.postgresVersion || (has(oldSelf.status) && has(oldSelf.status.upgrade) && oldSelf.status.upgrade.phase in ['Preflight', 'BackingUp', 'Failed'] && self.spec.postgresVersion == oldSelf.status.upgrade.from)))",message="postgresVersion cannot go down or be removed once set; it may only go back to status.upgrade.from while a major upgrade has not reached pg_upgrade (Preflight, BackingUp) or has Failed",fieldPath=".spec.postgresVersion"
//
// The name becomes the CNPG Cluster's name and the stem of every child's
// name, some of them Services (DNS-1035 labels, at most 63 characters):
// CNPG's <name>-rw, -ro, -r, setpoint's poolers <name>-pooler-rw and
// -pooler-ro (the longest suffix, 10 characters, so 53 would fit), pods
// <name>-N. CNPG's own webhook refuses cluster names longer than 50
// characters, so 50 is the bound. Names ending in -pooler, -pooler-rw,
// -pooler-ro or -primary collide by construction with another cluster's
// children: cluster X's pooler Service X-pooler-rw is cluster X-pooler's
// read-write Service, X's Pooler X-pooler-rw shares its name (and so its
// ServiceAccount, Role and Deployment) with the objects CNPG creates for a
// cluster named X-pooler-rw, and CNPG's primary PodDisruptionBudget of X is
// named X-primary, like the PodDisruptionBudget of a cluster X-primary.
//
// +kubebuilder:validation:XValidation:rule="self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter, no dots): CloudNativePG names Services after the cluster"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 50",message="metadata.name must be at most 50 characters: CloudNativePG refuses longer cluster names"
// +kubebuilder:validation:XValidation:rule="!self.metadata.name.matches('-(pooler|pooler-rw|pooler-ro|primary)$')",message="metadata.name must not end in -pooler, -pooler-rw, -pooler-ro or -primary: cluster X's pooler Service X-pooler-rw and primary disruption budget X-primary would collide with the objects of a cluster of that name"
//
// A topology (docs/adr/0015-replica-clusters-follow-an-archive.md) names
// this cluster or a peer primary, never lists this cluster among its
// peers, promotes a replica only with the demoted primary's token
// (without one CloudNativePG would promote it beside a primary that may
// still accept writes), and gives a token only to the cluster it promotes
// (CloudNativePG refuses one on a replica).
//
// +kubebuilder:validation:XValidation:rule="!has(self.spec.topology) || self.spec.topology.primary == self.metadata.name || self.spec.topology.peers.exists(p, p.name == self.spec.topology.primary)",message="topology.primary must name this cluster or one of topology.peers",fieldPath=".spec.topology.primary"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.topology) || self.spec.topology.peers.all(p, p.name != self.metadata.name)",message="topology.peers must not name this cluster: it is the group's member on this site",fieldPath=".spec.topology.peers"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.topology) || !has(self.spec.topology.promotionToken) || self.spec.topology.primary == self.metadata.name",message="topology.promotionToken is given only with topology.primary naming this cluster: it promotes this cluster",fieldPath=".spec.topology.promotionToken"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.topology) || !has(oldSelf.spec.topology) || oldSelf.spec.topology.primary == self.metadata.name || self.spec.topology.primary != self.metadata.name || has(self.spec.topology.promotionToken)",message="promoting this replica (topology.primary naming it) needs topology.promotionToken, the demoted primary's status.topology.demotionToken: without it the old primary may still accept writes that would be lost; to promote without the old primary, remove topology",fieldPath=".spec.topology.promotionToken"
type PostgresCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired cluster.
	Spec PostgresClusterSpec `json:"spec"`

	// status is what setpoint last observed.
	// +optional
	Status PostgresClusterStatus `json:"status,omitempty"`
}

// DeletionPolicy says what happens to data when its owner is deleted.
// +kubebuilder:validation:Enum=Retain;Delete
type DeletionPolicy string

const (
	// DeletionPolicyRetain keeps the data and the objects that hold it.
	DeletionPolicyRetain DeletionPolicy = "Retain"
	// DeletionPolicyDelete removes them.
	DeletionPolicyDelete DeletionPolicy = "Delete"
)

// PostgresClusterSpec is the desired cluster: a class plus overrides.
//
// +kubebuilder:validation:XValidation:rule="!has(self.backup) || !has(self.backup.objectStore) || !has(self.backup.objectStore.layout)",message="backup.objectStore.layout can only be set in a PostgresClusterClass: sharing archive folders across namespaces is the platform's decision",fieldPath=".backup.objectStore.layout"
// +kubebuilder:validation:XValidation:rule="!(has(self.topology) && has(self.restore))",message="topology and restore both say where the data comes from: a replica's bootstrap is its topology's primary",fieldPath=".topology"
// +kubebuilder:validation:XValidation:rule="has(self.restore) == has(oldSelf.restore)",message="restore can only be set when the cluster is created",fieldPath=".restore"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.storage) || !has(oldSelf.storage.size) || (has(self.storage) && has(self.storage.size) && quantity(string(self.storage.size)).compareTo(quantity(string(oldSelf.storage.size))) >= 0)",message="storage.size cannot shrink or be removed once set",fieldPath=".storage.size"
// +kubebuilder:validation:XValidation:rule="!(has(self.superuserAccess) && !self.superuserAccess && has(self.passwordConfig) && has(self.passwordConfig.superuserExternalSecretRef))",message="passwordConfig.superuserExternalSecretRef is a superuser Secret, and superuserAccess is false: remove one of them",fieldPath=".passwordConfig.superuserExternalSecretRef"
// +kubebuilder:validation:XValidation:rule="!(has(self.imageName) && has(self.imageCatalog))",message="imageName and imageCatalog both name the image: set one (imageCatalog pins a fleet's images, imageName is for a one-off image)"
// +kubebuilder:validation:XValidation:rule="!has(self.durability) || !has(self.durability.mode) || self.durability.mode != 'Synchronous' || !has(self.instances) || self.instances > (has(self.durability.standbys) ? self.durability.standbys : 1)",message="durability Synchronous needs more instances than durability.standbys (default 1): the primary is not its own standby",fieldPath=".durability"
type PostgresClusterSpec struct {
	// class is the name of the PostgresClusterClass this cluster starts
	// from. It cannot change after creation.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="class is immutable"
	Class string `json:"class"`

	// ClusterSettings override the class's values field by field.
	ClusterSettings `json:",inline"`

	// clusterDeletionPolicy says whether deleting the PostgresCluster
	// deletes the CNPG Cluster and its data (Delete) or keeps them (Retain).
	// +optional
	// +kubebuilder:default=Retain
	ClusterDeletionPolicy DeletionPolicy `json:"clusterDeletionPolicy,omitempty"`

	// passwordConfig points at credentials managed outside setpoint.
	// +optional
	PasswordConfig *ClusterPasswordConfig `json:"passwordConfig,omitempty"`

	// restore creates the cluster from another cluster's backups. It can
	// only be set when the cluster is created, and never changes.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="restore is immutable"
	Restore *RestoreSpec `json:"restore,omitempty"`

	// topology makes this cluster one of a group of clusters on several
	// sites, one primary and the others replicas replaying its archive,
	// with a declarative hand-over (demote the primary, then promote a
	// replica with the demoted primary's token). Removing it from a
	// replica promotes it at once, without a token: for when the primary
	// site is lost.
	// +optional
	Topology *TopologySpec `json:"topology,omitempty"`
}

// ClusterPasswordConfig points at externally managed credentials.
type ClusterPasswordConfig struct {
	// superuserExternalSecretRef names a basic-auth Secret (username
	// "postgres", password) that setpoint uses as the superuser Secret
	// instead of generating one. setpoint never modifies it. Naming one
	// asks for superuser access: with superuserAccess unset the cluster
	// has it; with superuserAccess false in the same PostgresCluster the
	// API server refuses the object, and with false from the class the
	// cluster is Failed (SuperuserAccessOff) until one of them changes
	// (superuserAccess: true on the cluster overrides the class).
	// +optional
	SuperuserExternalSecretRef *LocalObjectReference `json:"superuserExternalSecretRef,omitempty"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	// name of the object.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// Phase summarises an object's state in one word.
type Phase string

const (
	PhasePending      Phase = "Pending"
	PhaseProvisioning Phase = "Provisioning"
	PhaseConfiguring  Phase = "Configuring"
	PhaseReady        Phase = "Ready"
	PhaseFailed       Phase = "Failed"
	PhaseDeleting     Phase = "Deleting"
)

// PostgresClusterStatus is what setpoint last observed of the cluster.
type PostgresClusterStatus struct {
	// phase is one of Pending, Provisioning, Configuring, Ready, Failed,
	// Deleting.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// conditions hold one condition per component (SecretReady,
	// ObjectStoreReady, ProvisionerReady, MonitorReady, PoolerReady,
	// BackupReady, ConfigMapReady, PodMonitorReady, MetricsServiceReady)
	// and the overall Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the spec generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// provisionerRef names the CNPG Cluster that runs this cluster.
	// +optional
	ProvisionerRef *ProvisionerReference `json:"provisionerRef,omitempty"`

	// instances is the number of instances CloudNativePG reports.
	// +optional
	Instances int32 `json:"instances,omitempty"`

	// readyInstances is the number of ready instances.
	// +optional
	ReadyInstances int32 `json:"readyInstances,omitempty"`

	// currentPrimary is the instance that is currently primary.
	// +optional
	CurrentPrimary string `json:"currentPrimary,omitempty"`

	// connectionPoolerStatus reports the PgBouncer poolers.
	// +optional
	ConnectionPoolerStatus *ConnectionPoolerStatus `json:"connectionPoolerStatus,omitempty"`

	// backupStatus reports WAL archiving and backups: the archive's folder,
	// the scheduled backups and the recovery window.
	// +optional
	BackupStatus *BackupStatus `json:"backupStatus,omitempty"`

	// restoredFrom says where the data of a cluster created by
	// spec.restore came from.
	// +optional
	RestoredFrom *RestoreStatus `json:"restoredFrom,omitempty"`

	// topology is where the cluster stands in spec.topology: its role,
	// the peer it replays, its timeline and the hand-over tokens.
	// +optional
	Topology *TopologyStatus `json:"topology,omitempty"`

	// resources names the objects applications use to connect.
	// +optional
	Resources *ClusterResources `json:"resources,omitempty"`

	// storage reports the volume size setpoint applies and auto-grow's
	// decisions (never read back as intent).
	// +optional
	Storage *StorageStatus `json:"storage,omitempty"`

	// postgres is the last sample of the primary's health status
	// recorded (see PostgresHealth for when it is refreshed).
	// +optional
	Postgres *PostgresHealth `json:"postgres,omitempty"`

	// superuserPasswordRotation is the last rotation of the generated
	// superuser password, read from its Secret.
	// +optional
	SuperuserPasswordRotation *PasswordRotation `json:"superuserPasswordRotation,omitempty"`

	// upgrade is the last major upgrade: its phase while it runs, then
	// how it ended.
	// +optional
	Upgrade *MajorUpgradeStatus `json:"upgrade,omitempty"`
}

// ProvisionerReference names the CNPG object that runs a cluster.
type ProvisionerReference struct {
	// apiVersion of the object, postgresql.cnpg.io/v1.
	APIVersion string `json:"apiVersion"`
	// kind of the object, Cluster.
	Kind string `json:"kind"`
	// name of the object.
	Name string `json:"name"`
	// uid of the object.
	// +optional
	UID types.UID `json:"uid,omitempty"`
}

// ConnectionPoolerStatus reports the poolers.
type ConnectionPoolerStatus struct {
	// enabled says whether poolers are configured.
	Enabled bool `json:"enabled"`
	// readWrite is the phase of the read-write pooler.
	// +optional
	ReadWrite string `json:"readWrite,omitempty"`
	// readOnly is the phase of the read-only pooler.
	// +optional
	ReadOnly string `json:"readOnly,omitempty"`
}

// BackupStatus reports WAL archiving and backups: the archive's folder,
// the scheduled backups and the recovery window.
type BackupStatus struct {
	// objectStore names the barman-cloud ObjectStore in use.
	// +optional
	ObjectStore string `json:"objectStore,omitempty"`
	// serverName is the folder of the object store this cluster archives
	// its WAL and base backups under (barman-cloud's serverName), what
	// another cluster's restore.source names: the cluster's name, or
	// <name>-<first 8 characters of its UID> for a cluster restored from
	// its own name's backups (the source's folder is not empty).
	// +optional
	ServerName string `json:"serverName,omitempty"`
	// archivePath is the folder the cluster archives its WAL and base
	// backups in: <destinationPath>/<namespace>/<serverName>, or
	// <destinationPath>/<serverName> with the Shared layout or for a
	// cluster that archived there before namespaced folders.
	// +optional
	ArchivePath string `json:"archivePath,omitempty"`
	// scheduledBackups names the CNPG ScheduledBackups in use.
	// +optional
	// +listType=set
	ScheduledBackups []string `json:"scheduledBackups,omitempty"`
	// lastScheduleTime is when CloudNativePG last started a backup.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
	// firstRecoverabilityPoint is the earliest time the cluster can be
	// restored to, as the barman-cloud plugin reports it.
	// +optional
	FirstRecoverabilityPoint *metav1.Time `json:"firstRecoverabilityPoint,omitempty"`
	// lastSuccessfulBackupTime is when the last successful base backup
	// ended, as the barman-cloud plugin reports it.
	// +optional
	LastSuccessfulBackupTime *metav1.Time `json:"lastSuccessfulBackupTime,omitempty"`
	// lastFailedBackupTime is when the last failed base backup ended, as
	// the barman-cloud plugin reports it; kept after a later success.
	// +optional
	LastFailedBackupTime *metav1.Time `json:"lastFailedBackupTime,omitempty"`
	// lastRequest is the last on-demand backup request handled (annotation
	// postgres.setpoint.dev/backup-request).
	// +optional
	LastRequest *BackupRequestStatus `json:"lastRequest,omitempty"`
}

// ClusterResources names the objects applications use to connect.
type ClusterResources struct {
	// configMapRef names the connection-info ConfigMap.
	// +optional
	ConfigMapRef *LocalObjectReference `json:"configMapRef,omitempty"`
	// superUserSecretRef names the superuser Secret; unset while superuser
	// access is off.
	// +optional
	SuperUserSecretRef *LocalObjectReference `json:"superUserSecretRef,omitempty"`
	// monitorSecretRef names the Secret of the setpoint_monitor role
	// (pg_monitor), which setpoint's own checks and the collector log in
	// as; set once CloudNativePG has applied the role.
	// +optional
	MonitorSecretRef *LocalObjectReference `json:"monitorSecretRef,omitempty"`
}

// PostgresClusterList is a list of PostgresClusters.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type PostgresClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []PostgresCluster `json:"items"`
}
