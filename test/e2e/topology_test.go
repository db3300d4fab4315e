package e2e_test

import (
	"strings"
	"testing"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A distributed topology on the stand-in, as far as it plays one
// (docs/adr/0015-replica-clusters-follow-an-archive.md): the primary
// member is an ordinary cluster with CNPG's replica stanza and an
// externalClusters entry per member, Ready as Primary, its databases
// written as anywhere. The stand-in does not play replica clusters (real
// CNPG does: test/realcnpg TestReplicaClusterHandOverOnRealCNPG): a
// replica member is refused in its own words, and setpoint surfaces the
// refusal instead of passing a primary off as a replica.
func TestTopologyPrimaryOnTheStandIn(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s")
	class := backupClass(t, ns, "")
	kit.CreateTopologyMember(t, ns, "shop", class, "shop", pgv1.TopologyPeer{Name: "shop-b"})
	got := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	if st := got.Status.Topology; st == nil || st.Role != pgv1.TopologyRolePrimary || st.Source != "" {
		t.Fatalf("status.topology = %+v, want Primary", got.Status.Topology)
	}
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := cl.Spec.ReplicaCluster; r == nil || r.Self != "shop" || r.Primary != "shop" || r.Source != "shop-b" || len(cl.Spec.ExternalClusters) != 2 {
		t.Fatalf("CNPG Cluster replica %+v, externalClusters %+v", cl.Spec.ReplicaCluster, cl.Spec.ExternalClusters)
	}
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	execSQL(t, connectAs(t, ns, "app-orders-config", "app-orders-admin"), "CREATE TABLE written_on_the_primary (id int)")

	kit.CreateTopologyMember(t, ns, "shop-b", class, "shop", pgv1.TopologyPeer{Name: "shop"})
	b := kit.WaitCluster(t, ns, "shop-b", pgv1.PhaseFailed, 120*time.Second)
	pr := apimeta.FindStatusCondition(b.Status.Conditions, pgv1.ConditionProvisionerReady)
	if pr == nil || pr.Reason != pgv1.ReasonCNPGFailed || !strings.Contains(pr.Message, "does not play replica clusters") {
		t.Fatalf("shop-b ProvisionerReady %+v, want the stand-in's refusal", pr)
	}
	if cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop-b", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if b := cl.Spec.Bootstrap; b == nil || b.Recovery == nil || b.Recovery.Source != "shop" {
		t.Fatalf("the replica's CNPG Cluster bootstrap %+v, want recovery from shop", cl.Spec.Bootstrap)
	}
}
