package database

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// CNPG records observedGeneration only when it applies an object
// (SetAsReady); a failure leaves the one before — none, the first time
// (found by the parity scenarios on real CNPG: the stand-in recorded it).
// A first failure is CNPG's answer all the same, and its message is
// shown, not "waiting for CloudNativePG".
func TestFirstFailureShowsCNPGMessage(t *testing.T) {
	t.Parallel()
	t.Run("Database", func(t *testing.T) {
		f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
		toDatabases(t, f, "shop")
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		d := f.cnpgDB("shop-orders")
		d.Generation = 1
		if d, err := f.pg.CNPGV1().Databases(ns).Update(t.Context(), d, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		} else {
			d.Status = cnpgv1.DatabaseStatus{Applied: ptr.To(false), Message: `while creating database "orders": ERROR: nope (SQLSTATE 42704)`}
			if _, err := f.pg.CNPGV1().Databases(ns).UpdateStatus(t.Context(), d, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		c := cond(t, f.db("shop"), pgv1.ConditionDatabasesReady)
		if c.Reason != pgv1.ReasonDatabaseNotApplied || !strings.Contains(c.Message, "ERROR: nope") {
			t.Errorf("DatabasesReady %+v, want DatabaseNotApplied with CNPG's message", c)
		}
	})
	t.Run("DatabaseRole", func(t *testing.T) {
		f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		f.applyRoles()
		r := f.role("pg.orders-rw")
		r.Generation = 2
		r, err := f.pg.CNPGV1().DatabaseRoles(ns).Update(t.Context(), r, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		msg := `"orders_rw" is already managed by object "other"`
		f.setRoleStatus(r, cnpgv1.DatabaseRoleStatus{ObservedGeneration: 1, Applied: ptr.To(false), Message: msg})
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		c := cond(t, f.db("shop"), pgv1.ConditionRolesReady)
		if c.Reason != pgv1.ReasonRoleNotApplied || !strings.Contains(c.Message, msg) {
			t.Errorf("RolesReady %+v, want RoleNotApplied with CNPG's message", c)
		}
	})
}

// When an extension fails, CNPG's message is generic and the reason is in
// status.extensions: setpoint shows both.
func TestFailedExtensionIsNamed(t *testing.T) {
	st := cnpgv1.DatabaseStatus{Applied: ptr.To(false), Message: "database object reconciliation failed", Extensions: []cnpgv1.DatabaseObjectStatus{
		{Name: "pg_trgm", Applied: true},
		{Name: "nope", Message: `ERROR: extension "nope" is not available (SQLSTATE 0A000)`},
	}}
	want := `database object reconciliation failed; extension nope: ERROR: extension "nope" is not available (SQLSTATE 0A000)`
	if got := failureOf(st); got != want {
		t.Errorf("failureOf = %q, want %q", got, want)
	}
}
