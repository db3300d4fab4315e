package database

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A Ready database stays Ready, with no write and no SQL, while its
// cluster passes through a transient phase.
func TestReadyHoldsThroughTransientClusterPhases(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}))
	sqlBefore := len(f.sql.execs)
	for _, phase := range []pgv1.Phase{pgv1.PhaseConfiguring, pgv1.PhaseProvisioning, pgv1.PhasePending} {
		f.setCluster(func(pc *pgv1.PostgresCluster) {
			pc.Status.Phase = phase
			pc.Status.Conditions = []metav1.Condition{{Type: pgv1.ConditionReady, Status: metav1.ConditionFalse,
				Reason: "CNPG" + string(phase), Message: "applying configuration", ObservedGeneration: 1, LastTransitionTime: metav1.Now()}}
		})
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		if w := f.allWrites(); len(w) != 0 {
			t.Errorf("cluster %s: writes %v", phase, w)
		}
		if got := f.db("shop"); got.Status.Phase != pgv1.PhaseReady {
			t.Errorf("cluster %s: database %s", phase, got.Status.Phase)
		}
	}
	if len(f.sql.execs) != sqlBefore {
		t.Errorf("grants re-ran: %d transactions", len(f.sql.execs)-sqlBefore)
	}
	if ev := f.events(); len(ev) != 0 {
		t.Errorf("events: %v", ev)
	}

	// A Failed cluster is reflected, with its reason.
	f.setCluster(func(pc *pgv1.PostgresCluster) {
		pc.Status.Phase = pgv1.PhaseFailed
		pc.Status.Conditions = []metav1.Condition{{Type: pgv1.ConditionReady, Status: metav1.ConditionFalse,
			Reason: "CNPGFailed", Message: "unrecoverable", ObservedGeneration: 1, LastTransitionTime: metav1.Now()}}
	})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	c := cond(t, f.db("shop"), pgv1.ConditionClusterReady)
	if c.Reason != "ClusterFailed" || !strings.Contains(c.Message, "CNPGFailed: unrecoverable") {
		t.Errorf("ClusterReady = %+v", c)
	}
}

// A database that never was Ready waits for its cluster as before.
func TestNotYetReadyDatabaseWaitsForCluster(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	pc := readyCluster()
	pc.Status.Phase = pgv1.PhaseConfiguring
	pc.Status.Conditions[0].Status = metav1.ConditionFalse
	f := newFixture(t, clusterSecrets(), []runtime.Object{pc, db})
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
	if c := cond(t, f.db("shop"), pgv1.ConditionClusterReady); c.Reason != "ClusterNotReady" {
		t.Errorf("ClusterReady = %+v", c)
	}
}
