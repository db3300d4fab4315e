package database

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// deferredToApplied brings a database to the pass that applies its CNPG
// Database (status left at the roles wait) and returns the fixture.
func deferredToApplied(t *testing.T) *fixture {
	t.Helper()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.setCluster(ownRoles(db, "orders_admin", "orders_rw"))
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if r := cond(t, f.db("shop"), pgv1.ConditionRolesReady).Reason; r != "RolesPending" {
		t.Fatalf("status after the apply: RolesReady %s, want the roles wait left in place", r)
	}
	return f
}

// setCreated sets the CNPG Database's creation time as the API server would.
func setCreated(t *testing.T, f *fixture, name string, at time.Time) {
	t.Helper()
	d := f.cnpgDB(name)
	d.CreationTimestamp = metav1.NewTime(at)
	if _, err := f.pg.CNPGV1().Databases(ns).Update(t.Context(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func statusWritten(f *fixture) bool {
	return slices.Contains(f.allWrites(), "update postgresdatabases/status")
}

// Within the bound, a pass woken by the new CNPG Database itself writes
// nothing and asks to come back when the bound ends.
func TestApplyingWaitDeferredWithinBound(t *testing.T) {
	f := deferredToApplied(t)
	created := time.Now()
	setCreated(t, f, "shop-orders", created)
	defer func(old func() time.Time) { now = old }(now)
	now = func() time.Time { return created.Add(4 * time.Second) }
	res, err := f.sync("shop")
	if err != nil {
		t.Fatal(err)
	}
	if statusWritten(f) {
		t.Errorf("status written within the bound: %v", f.allWrites())
	}
	if res.RequeueAfter != applyReportDelay-4*time.Second {
		t.Errorf("requeue %v, want the rest of the bound %v", res.RequeueAfter, applyReportDelay-4*time.Second)
	}
}

// Past the bound the wait is said: DatabaseApplying is written.
func TestApplyingWaitWrittenPastBound(t *testing.T) {
	f := deferredToApplied(t)
	created := time.Now()
	setCreated(t, f, "shop-orders", created)
	defer func(old func() time.Time) { now = old }(now)
	now = func() time.Time { return created.Add(applyReportDelay + time.Second) }
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if r := cond(t, f.db("shop"), pgv1.ConditionDatabasesReady).Reason; r != "DatabaseApplying" {
		t.Errorf("DatabasesReady reason %s, want DatabaseApplying written past the bound", r)
	}
}

// CloudNativePG reporting it could not apply is written at once.
func TestNotAppliedWrittenAtOnce(t *testing.T) {
	f := deferredToApplied(t)
	setCreated(t, f, "shop-orders", time.Now())
	f.markApplied("shop-orders", false, "role missing")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if r := cond(t, f.db("shop"), pgv1.ConditionDatabasesReady).Reason; r != "DatabaseNotApplied" {
		t.Errorf("DatabasesReady reason %s, want DatabaseNotApplied at once", r)
	}
}
