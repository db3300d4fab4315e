package e2e_test

import (
	"testing"
	"time"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// adoptRestoredOverIntruders hands the database "orders" that cluster
// restored from the source's PostgresDatabase "app" to PostgresDatabase
// copy-app (kit.AdoptRestored: what both tiers check of an adoption),
// after two that may not take it. One without adoptFrom, or with
// adoptFrom naming another object, is refused (the restored roles are
// marked for app) and, though older, does not hold the roles back from
// copy-app; their deletion (policy Delete) drops nothing of copy-app's.
// app's passwords still authenticate on source, and the roles and the
// database are re-marked for copy-app.
func adoptRestoredOverIntruders(t *testing.T, ns, source, cluster string, wantT1 int) {
	t.Helper()
	kit.CreateDatabaseOn(t, ns, "intruder", cluster, "", "orders")
	got := kit.WaitDatabase(t, ns, "intruder", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionRolesReady, "RoleExists",
		"created by setpoint for PostgresDatabase "+ns+"/app (kept by a Retain deletion, or restored from a backup); only that PostgresDatabase may adopt it, or a new PostgresDatabase created with spec.adoptFrom: app")
	// adoptFrom takes only what is marked for the object it names.
	kit.CreateDatabaseOn(t, ns, "wrong-source", cluster, "nobody", "orders")
	got = kit.WaitDatabase(t, ns, "wrong-source", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionRolesReady, "RoleExists",
		"spec.adoptFrom takes over only what setpoint marked for PostgresDatabase "+ns+"/nobody")

	old := kit.AdoptRestored(t, ns, cluster, wantT1, 120*time.Second, map[string]string{"orders_rw": "rw", "orders_admin": "admin"})
	// The refused ones, first in line, did not hold the roles back; their
	// deletion drops nothing of the adopter's: the markers below find the
	// database and both roles still there.
	kit.DeleteDatabase(t, ns, "intruder")
	kit.DeleteDatabase(t, ns, "wrong-source")
	for user, password := range old {
		mustLogin(t, ns, source, "orders", user, password) // the source is untouched
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
