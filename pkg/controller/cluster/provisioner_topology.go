package cluster

import (
	"errors"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// A cluster with spec.topology is one of a group of clusters on several
// sites, one primary and the others replaying its archive
// (docs/adr/0015-replica-clusters-follow-an-archive.md). setpoint writes
// CloudNativePG's distributed topology: one externalClusters entry per
// member, this cluster included (CNPG requires replica.self and
// replica.primary to name entries), and replica {self, primary, source,
// promotionToken}. CNPG does the rest: it bootstraps a replica from the
// primary's backups, replays its archive, demotes a primary whose spec
// names a peer (publishing a demotion token) and promotes a replica given
// that token once it has replayed up to it.

// errTopologyWithoutArchive: a topology is fed through object stores, and
// the cluster's class configures none.
var errTopologyWithoutArchive = errors.New("spec.topology needs WAL archiving: the cluster's class configures no backup.objectStore, so this cluster could neither be followed by its peers nor find its own archive (its externalClusters entry)")

// withTopology adds the replica stanza and the group's externalClusters
// entries, and the bootstrap of a replica created from its primary's
// backups.
func withTopology(p *pass, spec *cnpgac.ClusterSpecApplyConfiguration) {
	t := p.cluster.Spec.Topology
	if t == nil {
		return
	}
	self := p.cluster.Name
	spec.WithExternalClusters(externalEntry(self, naming.ObjectStore(self), archiveServerName(p)))
	for _, peer := range t.Peers {
		spec.WithExternalClusters(withStreaming(externalEntry(peer.Name, peerObjectStore(p, peer), peerServerName(peer)), peer.Streaming))
	}
	rc := cnpgac.ReplicaClusterConfiguration().WithSelf(self).WithPrimary(t.Primary).WithSource(topologySource(t, self))
	if t.Primary == self && t.PromotionToken != "" {
		rc.WithPromotionToken(t.PromotionToken)
	}
	spec.WithReplicaCluster(rc)
	if src := replicaBootstrap(p); src != "" {
		spec.WithBootstrap(cnpgac.BootstrapConfiguration().WithRecovery(cnpgac.BootstrapRecovery().WithSource(src)))
	}
}

// externalEntry is an externalClusters entry that reads folder server of
// barman-cloud ObjectStore store (a restore's source, a topology member).
func externalEntry(name, store, server string) *cnpgac.ExternalClusterApplyConfiguration {
	return cnpgac.ExternalCluster().WithName(name).WithPluginConfiguration(
		cnpgac.PluginConfiguration().WithName(barmanPlugin).
			WithParameters(map[string]string{"barmanObjectName": store, "serverName": server}))
}

// streamingUser is CloudNativePG's replication role, which every
// CloudNativePG cluster's pg_hba admits for replication by client
// certificate (hostssl replication streaming_replica all cert).
const streamingUser = "streaming_replica"

// withStreaming adds to a peer's entry how to stream from its primary:
// libpq parameters (verify-full against the peer's CA) and the client
// certificate, key and CA, keys of the Secrets the spec names. CNPG then
// sets primary_conninfo on a replica of this peer, and keeps the archive
// as its restore_command: the stream and the archive, whichever has the
// WAL first. Nil streaming leaves the entry archive-only.
func withStreaming(e *cnpgac.ExternalClusterApplyConfiguration, s *pgv1.TopologyStreaming) *cnpgac.ExternalClusterApplyConfiguration {
	if s == nil {
		return e
	}
	return e.WithConnectionParameters(map[string]string{
		"host": s.Host, "port": strconv.Itoa(int(streamingPort(s))), "user": streamingUser,
		"dbname": "postgres", "sslmode": "verify-full",
	}).
		WithSSLCert(secretKey(s.CertificateSecretName, corev1.TLSCertKey)).
		WithSSLKey(secretKey(s.CertificateSecretName, corev1.TLSPrivateKeyKey)).
		WithSSLRootCert(secretKey(s.CASecretName, naming.CACertKey))
}

func secretKey(name, key string) corev1.SecretKeySelector {
	return corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}
}

// streamingPort is the peer's port, 5432 unless the spec says.
func streamingPort(s *pgv1.TopologyStreaming) int32 {
	if s.Port != nil {
		return *s.Port
	}
	return 5432
}

// topologySource is the entry CNPG replays from while the cluster is a
// replica: the primary peer; on the primary, the first peer (CNPG
// requires a source, and follows it only once demoted, when the spec
// names the new primary anyway).
func topologySource(t *pgv1.TopologySpec, self string) string {
	if t.Primary != self {
		return t.Primary
	}
	return t.Peers[0].Name
}

// replicaBootstrap is the entry a new replica restores its first base
// backup from: the primary's, when the CNPG Cluster does not exist yet and
// the cluster starts as a replica. An existing CNPG Cluster keeps the
// bootstrap it was created with (CNPG reads bootstrap only at creation;
// applying without it would drop a field we own for nothing), as long as
// it names an entry of the group. A cluster created as the primary runs
// initdb: no bootstrap.
func replicaBootstrap(p *pass) string {
	cl := p.observedCNPG()
	if cl == nil {
		if p.cluster.IsReplica() {
			return p.cluster.Spec.Topology.Primary
		}
		return ""
	}
	if b := cl.Spec.Bootstrap; b != nil && b.Recovery != nil && isTopologyMember(p.cluster, b.Recovery.Source) {
		return b.Recovery.Source
	}
	return ""
}

func isTopologyMember(pc *pgv1.PostgresCluster, name string) bool {
	t := pc.Spec.Topology
	return name == pc.Name || slices.ContainsFunc(t.Peers, func(peer pgv1.TopologyPeer) bool { return peer.Name == name })
}

// peerObjectStore is the ObjectStore a peer's archive is read through:
// the one the peer names, else this cluster's own (both archive under one
// root with a Shared-layout class).
func peerObjectStore(p *pass, peer pgv1.TopologyPeer) string {
	if peer.ObjectStoreName != "" {
		return peer.ObjectStoreName
	}
	return naming.ObjectStore(p.cluster.Name)
}

func peerServerName(peer pgv1.TopologyPeer) string {
	if peer.ServerName != "" {
		return peer.ServerName
	}
	return peer.Name
}

// topologyMatches: the CNPG Cluster's replica stanza is the one the spec
// asks for (the entries and bootstrap come with it in the spec hash).
func topologyMatches(s cnpgv1.ClusterSpec, pc *pgv1.PostgresCluster) bool {
	t, r := pc.Spec.Topology, s.ReplicaCluster
	if t == nil {
		return r == nil
	}
	token := ""
	if t.Primary == pc.Name {
		token = t.PromotionToken
	}
	return r != nil && r.Self == pc.Name && r.Primary == t.Primary && r.Source == topologySource(t, pc.Name) && r.PromotionToken == token
}
