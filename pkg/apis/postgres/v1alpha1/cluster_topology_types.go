package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// TopologySpec makes the cluster one of a group of clusters, usually in
// other Kubernetes clusters (sites), of which exactly one is primary at a
// time and the others replay its archive (CloudNativePG's distributed
// topology; docs/adr/0015-replica-clusters-follow-an-archive.md). Every
// site carries the same block; only primary decides this cluster's role.
type TopologySpec struct {
	// primary names the cluster of the group that is primary now: this
	// cluster's own name, or one of peers. On the primary, naming a peer
	// demotes this cluster (CloudNativePG shuts it down cleanly and
	// publishes a demotion token in status.topology.demotionToken). On a
	// replica, naming this cluster promotes it, and must come with
	// promotionToken.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=50
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Primary string `json:"primary"`

	// peers are the other clusters of the group, as this site reads their
	// archives. A replica bootstraps from the primary's backups and then
	// replays its archived WAL.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +listType=map
	// +listMapKey=name
	Peers []TopologyPeer `json:"peers"`

	// promotionToken is the demoted primary's status.topology.demotionToken,
	// given to the replica being promoted together with primary naming it.
	// CloudNativePG waits until the replica has replayed up to the token's
	// position, then promotes it: nothing the old primary committed is
	// lost.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	PromotionToken string `json:"promotionToken,omitempty"`
}

// TopologyPeer is another cluster of the group, reached through the
// object store it archives to.
type TopologyPeer struct {
	// name is the peer's cluster name, as its own site's topology.primary
	// names it. It is never this cluster's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=50
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// objectStoreName names a barman-cloud ObjectStore in this namespace
	// whose destinationPath holds the peer's folder. Default: this
	// cluster's own ObjectStore, <name>-backup, which reaches a peer's
	// folder when both archive under one root (a class with the Shared
	// layout: the platform's decision to let namespaces read each other's
	// folders).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	ObjectStoreName string `json:"objectStoreName,omitempty"`

	// serverName is the peer's folder there: its
	// status.backupStatus.serverName. Default: name.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	ServerName string `json:"serverName,omitempty"`

	// streaming lets a replica of this peer also stream its WAL from the
	// peer's primary, as Postgres's streaming replication, for a lag of
	// seconds instead of the archive's (a WAL segment, or
	// archive_timeout). The archive stays: the replica bootstraps from
	// the peer's backups and falls back to the archive whenever the
	// stream is down. It needs a network path from this site to the
	// peer's read-write Service, which the platform opens.
	// +optional
	Streaming *TopologyStreaming `json:"streaming,omitempty"`
}

// TopologyStreaming is how this site reaches a peer's primary for
// streaming replication: CloudNativePG's own replication user
// (streaming_replica) with the peer's client certificate, the server
// verified against the peer's CA (sslmode verify-full). Both Secrets are
// copies of the peer's, made by the platform's tools (an external secret
// store, GitOps): setpoint reads neither, and writes neither.
type TopologyStreaming struct {
	// host is the peer's read-write endpoint as this site reaches it,
	// which the peer's server certificate must name (CloudNativePG's
	// certificate names <cluster>-rw, <cluster>-rw.<namespace> and
	// <cluster>-rw.<namespace>.svc; a load balancer's name must be added
	// to the peer's certificate).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Host string `json:"host"`

	// port is the peer's Postgres port. Default: 5432.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port *int32 `json:"port,omitempty"`

	// certificateSecretName names a kubernetes.io/tls Secret in this
	// namespace holding the peer's streaming_replica client certificate
	// and key (tls.crt, tls.key): a copy of the peer's
	// <cluster>-replication-tls Secret (setpoint signs it with the peer's
	// client CA).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	CertificateSecretName string `json:"certificateSecretName"`

	// caSecretName names a Secret in this namespace holding, in key
	// ca.crt, the CA that signed the peer's server certificate: a copy of
	// the peer's <cluster>-server-ca Secret, which holds no key (never
	// copy CloudNativePG's <cluster>-ca, which holds the CA's key).
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	CASecretName string `json:"caSecretName"`
}

// TopologyRole is where a cluster of a topology stands.
type TopologyRole string

const (
	// TopologyRolePrimary: the cluster accepts writes and archives WAL.
	TopologyRolePrimary TopologyRole = "Primary"
	// TopologyRoleReplica: the cluster replays a peer's archive, read-only.
	TopologyRoleReplica TopologyRole = "Replica"
	// TopologyRoleDemoting: the spec names a peer primary and CloudNativePG
	// has not yet published the demotion token.
	TopologyRoleDemoting TopologyRole = "Demoting"
	// TopologyRolePromoting: the spec names this cluster primary with a
	// token CloudNativePG has not yet promoted it with.
	TopologyRolePromoting TopologyRole = "Promoting"
)

// TopologyStatus is where the cluster stands in its topology, read from
// the CNPG Cluster.
type TopologyStatus struct {
	// role is Primary, Replica, Demoting or Promoting.
	Role TopologyRole `json:"role"`
	// source is the peer a replica replays (its archive folder is
	// <objectStore>/<serverName>); empty on the primary.
	// +optional
	Source string `json:"source,omitempty"`
	// sourceObjectStore and sourceServerName are where that archive is
	// read: the ObjectStore in this namespace and the peer's folder.
	// +optional
	SourceObjectStore string `json:"sourceObjectStore,omitempty"`
	// +optional
	SourceServerName string `json:"sourceServerName,omitempty"`
	// sourceStreaming is the host:port a replica also streams the
	// source's WAL from (topology.peers[].streaming); empty when it
	// replays the archive alone. Whether the stream is up now is
	// Postgres's answer, in the metric setpoint_postgres_wal_receiver_streaming.
	// +optional
	SourceStreaming string `json:"sourceStreaming,omitempty"`
	// timeline is the Postgres timeline CloudNativePG reports: a
	// promotion starts a new one.
	// +optional
	Timeline int `json:"timeline,omitempty"`
	// demotionToken is CloudNativePG's token of this cluster's demotion:
	// give it to the peer being promoted as its topology.promotionToken.
	// +optional
	DemotionToken string `json:"demotionToken,omitempty"`
	// lastPromotionToken is the token CloudNativePG last promoted this
	// cluster with.
	// +optional
	LastPromotionToken string `json:"lastPromotionToken,omitempty"`
	// since is when role last changed.
	// +optional
	Since *metav1.Time `json:"since,omitempty"`
}

// IsReplica reports whether the spec makes the cluster a replica: its
// topology names a peer primary. Intent from the spec: a cluster being
// demoted is a replica from the pass that asks for it, and one being
// promoted no longer is.
func (pc *PostgresCluster) IsReplica() bool {
	t := pc.Spec.Topology
	return t != nil && t.Primary != pc.Name
}
