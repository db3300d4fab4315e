package database

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
)

// A generated Secret deleted after its role existed is created again with
// a new password, marked, with a Warning Event and a note in SecretsReady;
// a first Secret is not marked.
func TestDeletedSecretComesBackMarked(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	converge(t, f, "shop")
	first := f.secret("shop-orders-rw")
	if first.Annotations[credentials.RecreatedAtAnnotation] != "" {
		t.Fatalf("a first Secret is marked re-created: %v", first.Annotations)
	}
	f.events()

	if err := f.kube.CoreV1().Secrets(ns).Delete(t.Context(), "shop-orders-rw", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
	again := f.secret("shop-orders-rw")
	if string(again.Data["password"]) == string(first.Data["password"]) {
		t.Fatal("re-created Secret: same password")
	}
	// The new Secret as any, marked re-created now; the one that stayed
	// as it was.
	recreated := shopSecret("orders_rw")
	recreated.Annotations = map[string]string{"postgres.setpoint.dev/recreated-at": f.clock.Now().UTC().Format(time.RFC3339)}
	f.expectStored(recreated, again, randomPassword)
	f.expectStored(shopSecret("orders_admin"), f.secret("shop-orders-admin"), randomPassword)
	events := f.events()
	if !strings.Contains(strings.Join(events, "\n"), "Warning SecretRecreated Secret shop-orders-rw was deleted") {
		t.Errorf("events = %q", events)
	}
	for _, e := range events {
		if strings.Contains(e, string(again.Data["password"])) || strings.Contains(e, string(first.Data["password"])) {
			t.Errorf("event leaks a password: %s", e)
		}
	}
	if c := cond(t, f.db("shop"), pgv1.ConditionSecretsReady); !strings.Contains(c.Message, "shop-orders-rw (at ") {
		t.Errorf("SecretsReady = %+v", c)
	}
	// The DatabaseRole names the same Secret: CNPG sets the new password
	// from it, nothing to apply.
	f.expectStored(appliedRole(shopRole("orders_rw")), f.role("pg.orders-rw"))
}

// Our DatabaseRole that CloudNativePG applied with this Secret is proof
// enough that the Secret gave the role its password, whatever the status
// says (here: nothing).
func TestAppliedDatabaseRoleMarksTheDeletedSecret(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	converge(t, f, "shop")
	deleteAfter(t, f, nil)
	if got := f.secret("shop-orders-rw"); got.Annotations[credentials.RecreatedAtAnnotation] == "" {
		t.Fatalf("re-created Secret not marked: %v", got.Annotations)
	}
}

// A DatabaseRole CloudNativePG has not applied yet set no password: a
// Secret deleted before that, with nothing in status, comes back as a
// first one.
func TestUnappliedDatabaseRoleIssuedNothing(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if r := f.role("pg.orders-rw"); roleApplied(r) {
		t.Fatalf("DatabaseRole applied already: %+v", r.Status)
	}
	deleteAfter(t, f, nil)
	if got := f.secret("shop-orders-rw"); got.Annotations[credentials.RecreatedAtAnnotation] != "" {
		t.Errorf("a Secret that never gave a password is marked re-created: %v", got.Annotations)
	}
}

// While CNPG re-applies a role (Exists false for a while), a deleted
// Secret the last pass listed as the role's password is still a deleted
// one: it comes back marked.
func TestSecretDeletedWhileItsRoleIsReconciledIsMarked(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	ref := &pgv1.LocalObjectReference{Name: "shop-orders-rw"}
	deleteAfter(t, f, []pgv1.RoleStatus{{Name: "orders_rw", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: ref}})
	if got := f.secret("shop-orders-rw"); got.Annotations[credentials.RecreatedAtAnnotation] == "" {
		t.Fatalf("re-created Secret not marked: %v", got.Annotations)
	}
}

// deleteAfter records roles in the database's status entry (none: no
// entry), deletes its rw Secret and runs a pass that reads both.
func deleteAfter(t *testing.T, f *fixture, roles []pgv1.RoleStatus) {
	t.Helper()
	cur := f.db("shop")
	cur.Status.Databases = nil
	if roles != nil {
		cur.Status.Databases = []pgv1.DatabaseStatus{{Name: "orders", Roles: roles}}
	}
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).UpdateStatus(t.Context(), cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.kube.CoreV1().Secrets(ns).Delete(t.Context(), "shop-orders-rw", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
}
