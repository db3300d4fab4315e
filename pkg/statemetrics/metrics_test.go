package statemetrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	listers "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
)

// TestStateMetrics: every phase of an object is a series (1 for its own),
// each condition one series with its status and reason; an object gone
// from the cache and a removed source leave no series.
func TestStateMetrics(t *testing.T) {
	clusters := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	databases := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	pc := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "shop"}}
	pc.Status.Phase = pgv1.PhaseReady
	pc.Status.Conditions = []metav1.Condition{{Type: "BackupHealthy", Status: metav1.ConditionFalse, Reason: "BackupOverdue"}}
	fresh := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "new"}}
	db := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "orders"}}
	db.Status.Phase = pgv1.PhaseFailed
	for _, o := range []any{pc, fresh} {
		if err := clusters.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := databases.Add(db); err != nil {
		t.Fatal(err)
	}

	reg := prometheus.NewRegistry()
	m := New(reg)
	if n := testutil.CollectAndCount(m); n != 0 {
		t.Fatalf("%d series without a source, want 0", n)
	}
	remove := m.Add(&Source{Clusters: listers.NewPostgresClusterLister(clusters), Databases: listers.NewPostgresDatabaseLister(databases)})

	want := phases("setpoint_cluster_status_phase", "PostgresCluster", "postgrescluster", "new", "") +
		phases("", "", "postgrescluster", "shop", pgv1.PhaseReady) +
		"# HELP setpoint_cluster_status_condition 1 for each condition the PostgresCluster's status holds, labelled by its type, status (true, false, unknown) and reason.\n" +
		"# TYPE setpoint_cluster_status_condition gauge\n" +
		`setpoint_cluster_status_condition{condition="BackupHealthy",namespace="a",postgrescluster="shop",reason="BackupOverdue",status="false"} 1` + "\n" +
		phases("setpoint_database_status_phase", "PostgresDatabase", "postgresdatabase", "orders", pgv1.PhaseFailed)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}

	if err := clusters.Delete(fresh); err != nil {
		t.Fatal(err)
	}
	// shop: 6 phases and 1 condition; orders: 6 phases.
	if n := testutil.CollectAndCount(m); n != 2*len(Phases)+1 {
		t.Errorf("%d series after a deletion, want %d", n, 2*len(Phases)+1)
	}
	remove()
	if n := testutil.CollectAndCount(m); n != 0 {
		t.Errorf("%d series after the source went (leadership lost), want 0", n)
	}
}

// phases is the expected exposition of one object's phase series in
// namespace "a"; family "" continues the previous object's family.
func phases(family, kind, label, name string, current pgv1.Phase) string {
	var b strings.Builder
	if family != "" {
		b.WriteString("# HELP " + family + " 1 for the " + kind + "'s current phase (status.phase), 0 for each other phase; every phase 0 before the first status.\n")
		b.WriteString("# TYPE " + family + " gauge\n")
	} else {
		family = "setpoint_cluster_status_phase"
	}
	for _, p := range Phases {
		v := "0"
		if p == current {
			v = "1"
		}
		b.WriteString(family + `{namespace="a",phase="` + string(p) + `",` + label + `="` + name + `"} ` + v + "\n")
	}
	return b.String()
}
