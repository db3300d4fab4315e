package contract_test

import (
	"encoding/base64"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

func topologyCluster(ns, name, primary, token string, peers ...string) *pgv1.PostgresCluster {
	c := validCluster(ns)
	c.Name = name
	t := &pgv1.TopologySpec{Primary: primary, PromotionToken: token}
	for _, p := range peers {
		t.Peers = append(t.Peers, pgv1.TopologyPeer{Name: p})
	}
	c.Spec.Topology = t
	return c
}

// The topology rules the API server holds
// (docs/adr/0015-replica-clusters-follow-an-archive.md): primary names
// this cluster or a peer, peers never this cluster, a token only with
// primary naming this cluster, no topology beside restore, and a replica
// promoted only with a token — or by removing its topology.
func TestTopologyRules(t *testing.T) {
	ns := newNamespace(t)
	create := func(c *pgv1.PostgresCluster) error {
		_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
		return err
	}
	for _, c := range []*pgv1.PostgresCluster{
		topologyCluster(ns, "site-a", "site-a", "", "site-b"),
		topologyCluster(ns, "site-b", "site-a", "", "site-a"),
		topologyCluster(ns, "site-c", "site-a", "", "site-a", "site-b"),
	} {
		if err := create(c); err != nil {
			t.Fatalf("valid topology of %s refused: %v", c.Name, err)
		}
	}
	withRestore := topologyCluster(ns, "restored", "other", "", "other")
	withRestore.Spec.Restore = &pgv1.RestoreSpec{Source: "other"}
	for _, c := range []struct {
		name    string
		cluster *pgv1.PostgresCluster
		want    string
	}{
		{"primary neither self nor a peer", topologyCluster(ns, "x", "elsewhere", "", "site-b"),
			"spec.topology.primary: Invalid value: topology.primary must name this cluster or one of topology.peers"},
		{"self among the peers", topologyCluster(ns, "x", "x", "", "x"),
			"spec.topology.peers: Invalid value: topology.peers must not name this cluster"},
		{"token on a replica", topologyCluster(ns, "x", "site-a", "tok", "site-a"),
			"spec.topology.promotionToken: Invalid value: topology.promotionToken is given only with topology.primary naming this cluster"},
		{"topology beside restore", withRestore, "spec.topology: Invalid value: topology and restore both say where the data comes from"},
		{"no peers", topologyCluster(ns, "x", "x", ""), "spec.topology.peers"},
		{"a peer that is no cluster name", topologyCluster(ns, "x", "x", "", "Site.B"), "spec.topology.peers[0].name in body should match"},
	} {
		t.Run(c.name, func(t *testing.T) { expectRefused(t, create(c.cluster), c.want) })
	}

	update := func(name string, edit func(*pgv1.TopologySpec)) error {
		cur, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if edit == nil {
			cur.Spec.Topology = nil
		} else {
			edit(cur.Spec.Topology)
		}
		_, err = pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), cur, metav1.UpdateOptions{})
		return err
	}
	expectRefused(t, update("site-b", func(s *pgv1.TopologySpec) { s.Primary = "site-b" }),
		"spec.topology.promotionToken: Invalid value: promoting this replica (topology.primary naming it) needs topology.promotionToken")
	if err := update("site-a", func(s *pgv1.TopologySpec) { s.Primary = "site-b" }); err != nil {
		t.Fatalf("demotion refused: %v", err)
	}
	if err := update("site-b", func(s *pgv1.TopologySpec) { s.Primary, s.PromotionToken = "site-b", "tok" }); err != nil {
		t.Fatalf("promotion with a token refused: %v", err)
	}
	if err := update("site-c", nil); err != nil {
		t.Fatalf("removing a replica's topology (promotion without the old primary) refused: %v", err)
	}
}

// The CNPG shape of a member of a distributed topology, as the
// provisioner writes it: replica {self, primary, source, promotionToken}
// and one externalClusters entry per member through the barman-cloud
// plugin. CNPG's schema takes it with strict field validation and it
// reads back through our typed subset.
func TestTopologyAppliesStrictly(t *testing.T) {
	ns := newNamespace(t)
	entry := func(name, server string) *cnpgac.ExternalClusterApplyConfiguration {
		return cnpgac.ExternalCluster().WithName(name).WithPluginConfiguration(cnpgac.PluginConfiguration().
			WithName("barman-cloud.cloudnative-pg.io").WithParameters(map[string]string{"barmanObjectName": "site-b-backup", "serverName": server}))
	}
	member := cnpgac.Cluster("site-b", ns).WithSpec(cnpgac.ClusterSpec().
		WithInstances(1).
		WithStorage(cnpgac.StorageConfiguration().WithSize("1Gi")).
		WithBootstrap(cnpgac.BootstrapConfiguration().WithRecovery(cnpgac.BootstrapRecovery().WithSource("site-a"))).
		WithExternalClusters(entry("site-b", "site-b"), entry("site-a", "site-a")).
		WithReplicaCluster(cnpgac.ReplicaClusterConfiguration().WithSelf("site-b").WithPrimary("site-b").WithSource("site-a").WithPromotionToken("tok")))
	// A token CloudNativePG did not make is its webhook's to refuse
	// (setpoint reports it as ClusterSpecInvalid with this message).
	expectRefused(t, applyStrict(t, clusterGVR, ns, "site-b", mustJSON(t, member)), "Invalid promotionToken format")
	token := demotionTokenLike(t)
	member.Spec.ReplicaCluster.WithPromotionToken(token)
	if err := applyStrict(t, clusterGVR, ns, "site-b", mustJSON(t, member)); err != nil {
		t.Fatalf("CNPG's schema refused the topology member: %v", err)
	}
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "site-b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := cl.Spec.ReplicaCluster; r == nil || r.Self != "site-b" || r.Primary != "site-b" || r.Source != "site-a" || r.PromotionToken != token ||
		len(cl.Spec.ExternalClusters) != 2 {
		t.Errorf("read back as %+v / %+v", cl.Spec.ReplicaCluster, cl.Spec.ExternalClusters)
	}
}

// demotionTokenLike is a token of the shape CloudNativePG publishes as
// status.demotionToken: base64 of pg_controldata's figures as JSON.
func demotionTokenLike(t *testing.T) string {
	t.Helper()
	return base64.StdEncoding.EncodeToString(mustJSON(t, map[string]string{
		"latestCheckpointTimelineID": "1", "redoWalFile": "000000010000000000000005",
		"databaseSystemIdentifier": "7441234567890123456", "latestCheckpointREDOLocation": "0/5000028",
		"timeOfLatestCheckpoint": "Mon 07 Dec 2026 21:00:00 UTC", "operatorVersion": "1.30.0",
	}))
}
