package e2e_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// databaseOn creates PostgresDatabase name on cluster with one database
// and, when set, spec.adoptFrom.
func databaseOn(t *testing.T, ns, name, cluster, adoptFrom, database string) {
	t.Helper()
	d := &pgv1.PostgresDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.LocalObjectReference{Name: cluster}, AdoptFrom: adoptFrom,
			Databases: []pgv1.DatabaseSpec{{Name: database}}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PostgresDatabase %s: %v", name, err)
	}
}

// adoptRestored hands the database "orders" that cluster restored from the
// source's PostgresDatabase "app" to a PostgresDatabase of its own. One
// without adoptFrom, or with adoptFrom naming another object, is refused
// (the restored roles are marked for app) and, though older, does not hold
// the roles from one with adoptFrom: app, which becomes Ready, its new rw Secret reads wantT1
// rows labelled t1- and none labelled t2-, the roles and the database are
// re-marked for it, and app's passwords no longer authenticate on cluster
// (they still do on source).
func adoptRestored(t *testing.T, ns, source, cluster string, wantT1 int) {
	t.Helper()
	databaseOn(t, ns, "intruder", cluster, "", "orders")
	got := kit.WaitDatabase(t, ns, "intruder", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionRolesReady, "RoleExists",
		"created by setpoint for PostgresDatabase "+ns+"/app (kept by a Retain deletion, or restored from a backup); only that PostgresDatabase may adopt it, or a new PostgresDatabase created with spec.adoptFrom: app")
	// adoptFrom takes only what is marked for the object it names.
	databaseOn(t, ns, "wrong-source", cluster, "nobody", "orders")
	got = kit.WaitDatabase(t, ns, "wrong-source", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionRolesReady, "RoleExists",
		"spec.adoptFrom takes over only what setpoint marked for PostgresDatabase "+ns+"/nobody")

	oldRW := string(getSecret(t, ns, "app-orders-rw").Data["password"])
	oldAdmin := string(getSecret(t, ns, "app-orders-admin").Data["password"])
	began := time.Now()
	databaseOn(t, ns, "copy-app", cluster, "app", "orders")
	kit.WaitDatabase(t, ns, "copy-app", pgv1.PhaseReady, 120*time.Second)
	t.Logf("adoption: %s from create to Ready", time.Since(began).Round(time.Millisecond))
	// The refused ones, first in line, did not hold the roles back; their
	// deletion (policy Delete) drops nothing of the adopter's.
	kit.DeleteDatabase(t, ns, "intruder")
	kit.DeleteDatabase(t, ns, "wrong-source")

	if newRW := string(getSecret(t, ns, "copy-app-orders-rw").Data["password"]); newRW == oldRW {
		t.Fatal("the adopter's rw Secret holds the source's password")
	}
	rw := dial(t, ns, cluster, "orders", "copy-app-orders-rw", cluster+"-ca")
	var t1, t2 int
	if err := rw.QueryRow(t.Context(),
		"SELECT count(*) FILTER (WHERE label LIKE 't1-%'), count(*) FILTER (WHERE label LIKE 't2-%') FROM items").Scan(&t1, &t2); err != nil {
		t.Fatal(err)
	}
	if t1 != wantT1 || t2 != 0 {
		t.Fatalf("through the adopter's rw role: %d t1 rows and %d t2 rows, want %d and 0", t1, t2, wantT1)
	}
	execSQL(t, rw, "INSERT INTO items (label) VALUES ('after adoption')")

	for user, old := range map[string]string{"orders_rw": oldRW, "orders_admin": oldAdmin} {
		if _, err := kit.Login(t, ns, cluster, "orders", user, old); !testkit.PasswordRefused(err) {
			t.Errorf("%s: the source's password still authenticates on the restored cluster %s", user, cluster)
		}
		mustLogin(t, ns, source, "orders", user, old) // the source is untouched
	}

	su := dial(t, ns, cluster, "postgres", cluster+"-superuser", cluster+"-ca")
	want := ownership.PostgresMarker(ns, "copy-app")
	for _, q := range []string{
		"SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = 'orders'",
		"SELECT shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname = 'orders_admin'",
		"SELECT shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname = 'orders_rw'",
	} {
		if got := queryString(t, su, q); got != want {
			t.Errorf("%s: %q, want %q", q, got, want)
		}
	}
}
