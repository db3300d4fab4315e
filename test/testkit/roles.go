package testkit

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// DeniedEntry checks that user, with its own correct password, cannot
// connect to database of cluster: Postgres answers 42501 (no CONNECT),
// not a login failure.
func (k Kit) DeniedEntry(t testing.TB, ns, cluster, database, user, password string) {
	t.Helper()
	if _, err := k.Login(t, ns, cluster, database, user, password); SQLState(err) != "42501" {
		t.Errorf("%s connecting to database %s: %v, want SQLSTATE 42501 (permission denied for database)", user, database, err)
	}
}

// DeletedRoleComesBack deletes the DatabaseRole of orders_admin (cluster
// shop, PostgresDatabase app, database orders) by hand and checks what
// both tiers hold of it: its reclaim is retain while the database lives,
// so CNPG lets the object go and keeps the role; setpoint makes the
// object again, applied, within timeout, app is Ready again within
// timeout, and the role keeps its password and its ownership of the
// database.
func (k Kit) DeletedRoleComesBack(t testing.TB, ns string, timeout time.Duration) {
	t.Helper()
	roles := k.PG.CNPGV1().DatabaseRoles(ns)
	before, err := roles.Get(t.Context(), "shop.orders-admin", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if before.Spec.DatabaseRoleReclaimPolicy != "retain" {
		t.Fatalf("reclaim %q while the database lives, want retain", before.Spec.DatabaseRoleReclaimPolicy)
	}
	if err := roles.Delete(t.Context(), "shop.orders-admin", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	k.Eventually(t, timeout, "DatabaseRole shop.orders-admin made again and applied", func(ctx context.Context) (bool, string, error) {
		r, err := roles.Get(ctx, "shop.orders-admin", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return r.UID != before.UID && r.DeletionTimestamp == nil && r.Status.Applied != nil && *r.Status.Applied &&
			r.Status.ObservedGeneration == r.Generation, fmt.Sprintf("uid %s (before %s), deleting %v, status %+v", r.UID, before.UID, r.DeletionTimestamp, r.Status), nil
	})
	k.WaitDatabase(t, ns, "app", pgv1.PhaseReady, timeout)
	admin, err := k.Login(t, ns, "shop", "orders", "orders_admin", k.Password(t, ns, "app-orders-admin"))
	if err != nil {
		t.Fatalf("orders_admin cannot log in with its password: %v", err)
	}
	var owner string
	if err := admin.QueryRow(t.Context(), "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'orders'").Scan(&owner); err != nil || owner != "orders_admin" {
		t.Errorf("database orders is owned by %q (%v), want orders_admin", owner, err)
	}
}
