package database

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// isolated: stmts close database db to PUBLIC, after the grants.
func isolated(t *testing.T, stmts []string, db string) {
	t.Helper()
	revoke := slices.Index(stmts, `REVOKE CONNECT, TEMPORARY ON DATABASE "`+db+`" FROM PUBLIC`)
	grant := slices.Index(stmts, `GRANT CONNECT, TEMPORARY ON DATABASE "`+db+`" TO "`+db+`_rw"`)
	if revoke < 0 || grant < 0 || grant > revoke {
		t.Errorf("plan does not grant its own role, then revoke PUBLIC (grant at %d, revoke at %d):\n%q", grant, revoke, stmts)
	}
	if !slices.Contains(stmts, "REVOKE CREATE ON SCHEMA public FROM PUBLIC") {
		t.Errorf("plan leaves CREATE on schema public to PUBLIC:\n%q", stmts)
	}
}

// TestNewDatabaseIsClosedToOtherRoles: the grants of a new database take
// CONNECT, TEMPORARY and CREATE on schema public from PUBLIC, in the
// transaction that grants its own roles theirs, as its owner.
func TestNewDatabaseIsClosedToOtherRoles(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	converge(t, f, "shop")
	if len(f.sql.execs) == 0 {
		t.Fatal("no SQL ran")
	}
	last := f.sql.execs[len(f.sql.execs)-1]
	if last.target.User != "orders_admin" || last.target.Database != "orders" {
		t.Errorf("grants ran as %s on %s, want orders_admin on orders", last.target.User, last.target.Database)
	}
	isolated(t, last.stmts, "orders")
	if c := cond(t, f.db("shop"), pgv1.ConditionPrivilegesReady); c.Reason != pgv1.ReasonPrivilegesIsolated {
		t.Errorf("PrivilegesReady = %+v", c)
	}
}

// TestUpgradeIsolatesExistingDatabases: a database an earlier release made
// Ready (PrivilegesGranted at its generation: PUBLIC kept its rights) gets
// the plan once more after an operator upgrade, and then no more.
func TestUpgradeIsolatesExistingDatabases(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	converge(t, f, "shop")
	old := f.db("shop")
	meta.SetStatusCondition(&old.Status.Conditions, metav1.Condition{Type: pgv1.ConditionPrivilegesReady,
		Status: metav1.ConditionTrue, Reason: "PrivilegesGranted", ObservedGeneration: old.Generation,
		Message: "privileges granted on 1 database(s)"})
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).UpdateStatus(t.Context(), old, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := len(f.sql.execs)
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
	if len(f.sql.execs) != before+1 {
		t.Fatalf("the upgraded pass ran %d SQL transactions, want 1", len(f.sql.execs)-before)
	}
	isolated(t, f.sql.execs[before].stmts, "orders")
	got := f.db("shop")
	if c := cond(t, got, pgv1.ConditionPrivilegesReady); c.Reason != pgv1.ReasonPrivilegesIsolated {
		t.Errorf("PrivilegesReady = %+v", c)
	}
	if got.Status.Phase != pgv1.PhaseReady {
		t.Errorf("phase %s after the upgrade's pass, want Ready", got.Status.Phase)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if len(f.sql.execs) != before+1 {
		t.Errorf("a converged pass ran the plan again (%d transactions)", len(f.sql.execs)-before)
	}
}
