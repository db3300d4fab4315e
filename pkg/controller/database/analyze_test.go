package database

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Through its cluster's major upgrade a database stays Ready and says so
// (ClusterUpgrading, even while the cluster is not Ready under
// pg_upgrade); once the upgrade reaches Analyzing it is analyzed once, as
// its owner, records the major, and names its outdated extensions in an
// Event; a later pass analyzes nothing again.
func TestDatabaseStaysReadyThroughAnUpgradeAndIsAnalyzedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	converge(t, f, "shop")
	upgrade := func(phase pgv1.UpgradePhase, ready bool) {
		f.setCluster(func(pc *pgv1.PostgresCluster) {
			pc.Status.Upgrade = &pgv1.MajorUpgradeStatus{From: 15, To: 17, Phase: phase}
			status := metav1.ConditionTrue
			pc.Status.Phase = pgv1.PhaseReady
			if !ready {
				status, pc.Status.Phase = metav1.ConditionFalse, pgv1.PhaseConfiguring
			}
			meta.SetStatusCondition(&pc.Status.Conditions, metav1.Condition{Type: pgv1.ConditionReady, Status: status,
				Reason: "Upgrading", ObservedGeneration: pc.Generation})
		})
		if _, err := f.syncReported("shop"); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(reason string, analyzed int, major int32) {
		t.Helper()
		db := f.db("shop")
		if db.Status.Phase != pgv1.PhaseReady {
			t.Errorf("phase %s, want Ready", db.Status.Phase)
		}
		if c := cond(t, db, pgv1.ConditionClusterReady); c.Reason != reason || c.Status != metav1.ConditionTrue {
			t.Errorf("ClusterReady = %+v, want True %s", c, reason)
		}
		if f.sql.analyzed != analyzed || db.Status.StatisticsMajor != major {
			t.Errorf("%d ANALYZE runs, statisticsMajor %d; want %d, %d", f.sql.analyzed, db.Status.StatisticsMajor, analyzed, major)
		}
	}

	upgrade(pgv1.UpgradeUpgrading, false)
	expect(pgv1.ReasonClusterUpgrading, 0, 0)
	f.sql.outdated = []string{"pg_trgm 1.5 \u2192 1.6"}
	upgrade(pgv1.UpgradeAnalyzing, true)
	expect(pgv1.ReasonClusterUpgrading, 1, 17)
	if !strings.Contains(strings.Join(f.events(), "\n"), "pg_trgm 1.5 \u2192 1.6") {
		t.Error("no Event names the outdated extension")
	}
	if f.sql.analyzedAs != "orders_admin" || f.sql.analyzedIn != "orders" {
		t.Errorf("ANALYZE ran as %s in %s, want the owner orders_admin in orders", f.sql.analyzedAs, f.sql.analyzedIn)
	}
	upgrade(pgv1.UpgradeSucceeded, true)
	expect(pgv1.ReasonClusterReady, 1, 17)
}
