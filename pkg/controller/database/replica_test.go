package database

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// On a replica cluster (its topology names a peer primary) a
// PostgresDatabase writes nothing to Postgres — no DatabaseRole, no CNPG
// Database, no grant, no connection ConfigMap — and waits with
// ClusterIsReplica, naming the primary.
func TestADatabaseOnAReplicaWritesNothingToPostgres(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	pc := readyCluster()
	pc.Spec.Topology = &pgv1.TopologySpec{Primary: "pg-a", Peers: []pgv1.TopologyPeer{{Name: "pg-a"}}}
	f := newFixture(t, clusterSecrets(), []runtime.Object{pc, db})
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
	got := f.db("shop")
	c := cond(t, got, pgv1.ConditionClusterReady)
	if c.Reason != pgv1.ReasonClusterIsReplica || !strings.Contains(c.Message, "pg-a") || got.Status.Phase != pgv1.PhasePending {
		t.Fatalf("phase %s, ClusterReady %+v; want Pending, %s naming pg-a", got.Status.Phase, c, pgv1.ReasonClusterIsReplica)
	}
	for _, w := range f.allWrites() {
		_, resource, _ := strings.Cut(w, " ")
		if slices.Contains([]string{"databaseroles", "databases", "configmaps"}, resource) {
			t.Errorf("write on a replica: %s", w)
		}
	}
	if len(f.sql.execs) != 0 {
		t.Errorf("SQL on a replica: %d transactions", len(f.sql.execs))
	}
}
