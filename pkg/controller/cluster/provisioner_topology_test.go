package cluster

import (
	"errors"
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// topologyPass is a provisioner pass of cluster shop, archiving through a
// Shared-layout store, with topology t.
func topologyPass(t *testing.T, cs *fake.Clientset, topology *pgv1.TopologySpec) *pass {
	t.Helper()
	p := provisionerPass(t, cs, pgv1.ClusterSettings{Backup: &pgv1.BackupSpec{ObjectStore: &pgv1.ObjectStoreSpec{
		DestinationPath: "s3://b/pg", Layout: pgv1.ArchiveLayoutShared, CredentialsSecretName: "creds"}}})
	p.cluster.Spec.Topology = topology
	return p
}

func appliedCluster(t *testing.T, cs *fake.Clientset) *cnpgv1.Cluster {
	t.Helper()
	cl, err := cs.CNPGV1().Clusters("ns").Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func entryOf(cl *cnpgv1.Cluster, name string) map[string]string {
	for _, e := range cl.Spec.ExternalClusters {
		if e.Name == name && e.PluginConfiguration != nil && e.PluginConfiguration.Name == barmanPlugin {
			return e.PluginConfiguration.Parameters
		}
	}
	return nil
}

// A cluster created as a replica: CNPG's distributed topology with this
// cluster as self, the peer as primary and source, an externalClusters
// entry for each (its own archive through its own store; the peer's
// folder through the same store by default), and the first base backup
// restored from the primary's entry.
func TestANewReplicaFollowsItsPrimarysArchive(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	p := topologyPass(t, cs, &pgv1.TopologySpec{Primary: "shop-a", Peers: []pgv1.TopologyPeer{{Name: "shop-a"}}})
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	cl := appliedCluster(t, cs)
	want := cnpgv1.ReplicaClusterConfiguration{Self: "shop", Primary: "shop-a", Source: "shop-a"}
	if r := cl.Spec.ReplicaCluster; r == nil || *r != want {
		t.Fatalf("replica = %+v, want %+v", cl.Spec.ReplicaCluster, want)
	}
	if e := entryOf(cl, "shop"); e["barmanObjectName"] != "shop-backup" || e["serverName"] != "shop" {
		t.Errorf("own entry %v, want its own store and folder", e)
	}
	if e := entryOf(cl, "shop-a"); e["barmanObjectName"] != "shop-backup" || e["serverName"] != "shop-a" {
		t.Errorf("peer entry %v, want the peer's folder through this cluster's store", e)
	}
	if b := cl.Spec.Bootstrap; b == nil || b.Recovery == nil || b.Recovery.Source != "shop-a" {
		t.Errorf("bootstrap = %+v, want recovery from shop-a", cl.Spec.Bootstrap)
	}
	if !clusterMatches(cl, p) {
		t.Error("the CNPG Cluster just applied does not match the spec")
	}
}

// A cluster created as the primary runs initdb (no bootstrap); its source
// is the peer it would follow once demoted, read through the store and
// folder the peer names.
func TestTheTopologysPrimaryRunsInitdbAndNamesItsPeer(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	p := topologyPass(t, cs, &pgv1.TopologySpec{Primary: "shop", Peers: []pgv1.TopologyPeer{{Name: "shop-b", ObjectStoreName: "dr", ServerName: "b-folder"}}})
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	cl := appliedCluster(t, cs)
	want := cnpgv1.ReplicaClusterConfiguration{Self: "shop", Primary: "shop", Source: "shop-b"}
	if r := cl.Spec.ReplicaCluster; r == nil || *r != want {
		t.Fatalf("replica = %+v, want %+v", cl.Spec.ReplicaCluster, want)
	}
	if cl.Spec.Bootstrap != nil {
		t.Errorf("bootstrap = %+v on a primary", cl.Spec.Bootstrap)
	}
	if e := entryOf(cl, "shop-b"); e["barmanObjectName"] != "dr" || e["serverName"] != "b-folder" {
		t.Errorf("peer entry %v, want ObjectStore dr, folder b-folder", e)
	}
}

// Promotion: the token goes to CNPG with primary naming this cluster, the
// bootstrap the CNPG Cluster was created with is kept, and a spec that
// changed only the token is drift the next pass applies.
func TestPromotionWritesTheTokenAndKeepsTheBootstrap(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	p := topologyPass(t, cs, &pgv1.TopologySpec{Primary: "shop-a", Peers: []pgv1.TopologyPeer{{Name: "shop-a"}}})
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	replica := appliedCluster(t, cs)
	p = topologyPass(t, cs, &pgv1.TopologySpec{Primary: "shop", PromotionToken: "tok", Peers: []pgv1.TopologyPeer{{Name: "shop-a"}}})
	p.obs.cnpg = replica
	if clusterMatches(replica, p) {
		t.Fatal("a promotion matches the replica's CNPG Cluster: it would never be applied")
	}
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	cl := appliedCluster(t, cs)
	want := cnpgv1.ReplicaClusterConfiguration{Self: "shop", Primary: "shop", Source: "shop-a", PromotionToken: "tok"}
	if r := cl.Spec.ReplicaCluster; r == nil || *r != want {
		t.Fatalf("replica = %+v, want %+v", cl.Spec.ReplicaCluster, want)
	}
	if b := cl.Spec.Bootstrap; b == nil || b.Recovery == nil || b.Recovery.Source != "shop-a" {
		t.Errorf("bootstrap = %+v, want the recovery it was created with", cl.Spec.Bootstrap)
	}
}

// Without an archive there is nothing to follow: no CNPG Cluster is
// written, and the cluster is Failed with the reason.
func TestATopologyWithoutAnArchiveIsRefused(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	p := provisionerPass(t, cs, pgv1.ClusterSettings{})
	p.cluster.Spec.Topology = &pgv1.TopologySpec{Primary: "shop", Peers: []pgv1.TopologyPeer{{Name: "shop-b"}}}
	err := (provisionerComponent{}).Reconcile(t.Context(), p)
	if !errors.Is(err, errTopologyWithoutArchive) {
		t.Fatalf("Reconcile = %v, want errTopologyWithoutArchive", err)
	}
	if list, _ := cs.CNPGV1().Clusters("ns").List(t.Context(), metav1.ListOptions{}); len(list.Items) != 0 {
		t.Fatalf("a CNPG Cluster was written: %+v", list.Items)
	}
	if h := (provisionerComponent{}).Observe(t.Context(), p, err); h.Phase != pgv1.PhaseFailed || h.Reason != pgv1.ReasonTopologyWithoutArchive {
		t.Fatalf("health %+v, want Failed %s", h, pgv1.ReasonTopologyWithoutArchive)
	}
}

// The role follows the spec's intent and CNPG's hand-over: a token not
// yet promoted with is Promoting, a primary asked to step down is
// Demoting until CNPG publishes its token.
func TestTopologyRoleFollowsTheHandOver(t *testing.T) {
	t.Parallel()
	pc := func(primary, token string) *pgv1.PostgresCluster {
		return &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: "shop"}, Spec: pgv1.PostgresClusterSpec{
			Topology: &pgv1.TopologySpec{Primary: primary, PromotionToken: token, Peers: []pgv1.TopologyPeer{{Name: "peer"}}}}}
	}
	cnpg := func(demotion, lastPromotion string) *cnpgv1.Cluster {
		return &cnpgv1.Cluster{Status: cnpgv1.ClusterStatus{DemotionToken: demotion, LastPromotionToken: lastPromotion}}
	}
	was := func(r pgv1.TopologyRole) *pgv1.TopologyStatus { return &pgv1.TopologyStatus{Role: r} }
	for _, tc := range []struct {
		name string
		pc   *pgv1.PostgresCluster
		cl   *cnpgv1.Cluster
		prev *pgv1.TopologyStatus
		want pgv1.TopologyRole
	}{
		{"primary from the start", pc("shop", ""), cnpg("", ""), nil, pgv1.TopologyRolePrimary},
		{"replica from the start", pc("peer", ""), cnpg("", ""), nil, pgv1.TopologyRoleReplica},
		{"demotion asked", pc("peer", ""), cnpg("", ""), was(pgv1.TopologyRolePrimary), pgv1.TopologyRoleDemoting},
		{"demotion still waiting", pc("peer", ""), cnpg("", ""), was(pgv1.TopologyRoleDemoting), pgv1.TopologyRoleDemoting},
		{"demoted", pc("peer", ""), cnpg("tok", ""), was(pgv1.TopologyRoleDemoting), pgv1.TopologyRoleReplica},
		{"promotion asked", pc("shop", "tok"), cnpg("", ""), was(pgv1.TopologyRoleReplica), pgv1.TopologyRolePromoting},
		{"promoted", pc("shop", "tok"), cnpg("", "tok"), was(pgv1.TopologyRolePromoting), pgv1.TopologyRolePrimary},
	} {
		if got := topologyRole(tc.pc, tc.cl, tc.prev); got != tc.want {
			t.Errorf("%s: role %s, want %s", tc.name, got, tc.want)
		}
	}
}

// On a replica the provisioner does not log in (the roles are the
// primary's, replayed): Ready with ReplicaHealthy, and status.topology
// names what it replays.
func TestAHealthyReplicaIsReadyWithoutLoggingIn(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	p := topologyPass(t, cs, &pgv1.TopologySpec{Primary: "shop-a", Peers: []pgv1.TopologyPeer{{Name: "shop-a"}}})
	p.provisioner.cnpg = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"},
		Status: cnpgv1.ClusterStatus{Phase: "Cluster in healthy state", Instances: 1, ReadyInstances: 1, TimelineID: 1}}
	h := (provisionerComponent{}).Observe(t.Context(), p, nil)
	if h.Phase != pgv1.PhaseReady || h.Reason != pgv1.ReasonReplicaHealthy {
		t.Fatalf("health %+v, want Ready %s", h, pgv1.ReasonReplicaHealthy)
	}
	st := p.status.Topology
	if st == nil || st.Role != pgv1.TopologyRoleReplica || st.Source != "shop-a" || st.SourceObjectStore != "shop-backup" ||
		st.SourceServerName != "shop-a" || st.Timeline != 1 || st.Since == nil {
		t.Fatalf("status.topology = %+v", st)
	}
}

// A peer with streaming: its entry keeps the archive (the bootstrap and
// the fallback) and adds CloudNativePG's replication user over TLS,
// verified against the peer's CA, with the certificate and CA from the
// Secrets the spec names; status and the message say the replica streams.
// A peer without it stays archive-only.
func TestAStreamingPeerAddsItsServerToTheArchive(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	stream := &pgv1.TopologyStreaming{Host: "shop-a-rw.site-a.svc", CertificateSecretName: "shop-a-replication", CASecretName: "shop-a-ca"}
	p := topologyPass(t, cs, &pgv1.TopologySpec{Primary: "shop-a", Peers: []pgv1.TopologyPeer{
		{Name: "shop-a", Streaming: stream}, {Name: "shop-c"}}})
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	cl := appliedCluster(t, cs)
	var a, c *cnpgv1.ExternalCluster
	for i, e := range cl.Spec.ExternalClusters {
		switch e.Name {
		case "shop-a":
			a = &cl.Spec.ExternalClusters[i]
		case "shop-c":
			c = &cl.Spec.ExternalClusters[i]
		}
	}
	if a == nil || c == nil {
		t.Fatalf("entries %+v", cl.Spec.ExternalClusters)
	}
	want := map[string]string{"host": "shop-a-rw.site-a.svc", "port": "5432", "user": "streaming_replica", "dbname": "postgres", "sslmode": "verify-full"}
	if !maps.Equal(a.ConnectionParameters, want) {
		t.Errorf("connectionParameters %v, want %v", a.ConnectionParameters, want)
	}
	for _, sel := range []struct {
		name      string
		got       *corev1.SecretKeySelector
		secret, k string
	}{{"sslCert", a.SSLCert, "shop-a-replication", "tls.crt"}, {"sslKey", a.SSLKey, "shop-a-replication", "tls.key"}, {"sslRootCert", a.SSLRootCert, "shop-a-ca", "ca.crt"}} {
		if sel.got == nil || sel.got.Name != sel.secret || sel.got.Key != sel.k {
			t.Errorf("%s = %+v, want %s/%s", sel.name, sel.got, sel.secret, sel.k)
		}
	}
	if e := entryOf(cl, "shop-a"); e["barmanObjectName"] != "shop-backup" || e["serverName"] != "shop-a" {
		t.Errorf("the streaming peer's archive entry %v, want it kept", e)
	}
	if c.ConnectionParameters != nil || c.SSLCert != nil {
		t.Errorf("a peer without streaming got a server: %+v", c)
	}

	p.provisioner.cnpg = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"},
		Status: cnpgv1.ClusterStatus{Phase: "Cluster in healthy state", Instances: 1, ReadyInstances: 1, TimelineID: 1}}
	h := (provisionerComponent{}).Observe(t.Context(), p, nil)
	if st := p.status.Topology; st == nil || st.SourceStreaming != "shop-a-rw.site-a.svc:5432" {
		t.Errorf("status.topology = %+v, want sourceStreaming shop-a-rw.site-a.svc:5432", st)
	}
	if !strings.Contains(h.Message, "and streaming from shop-a-rw.site-a.svc:5432") {
		t.Errorf("ProvisionerReady message %q does not say it streams", h.Message)
	}
}
