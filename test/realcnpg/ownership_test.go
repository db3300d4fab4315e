package realcnpg

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// handMadeUntouched makes a role and a database by hand, as the superuser: a
// PostgresDatabase that would need either is refused with the documented
// reason, no CNPG Database is made for them, and neither is touched, not
// by the refusal and not by deleting the PostgresDatabases (policy
// Delete), which drops only the roles setpoint made.
func handMadeUntouched(t *testing.T, ns string) {
	su := kit.ConnectAs(t, ns, "shop", "postgres", "shop-superuser")
	for _, sql := range []string{"CREATE ROLE crm_rw LOGIN PASSWORD 'theirs'", "CREATE DATABASE legacy"} {
		if _, err := su.Exec(t.Context(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	legacy := kit.ConnectAs(t, ns, "shop", "legacy", "shop-superuser")
	if _, err := legacy.Exec(t.Context(), "CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	_ = legacy.Close(t.Context())
	intact := func(when string) {
		t.Helper()
		if _, err := kit.Login(t, ns, "shop", "postgres", "crm_rw", "theirs"); err != nil {
			t.Errorf("%s: crm_rw no longer logs in with its own password: %v", when, err)
		}
		var owner string
		if err := su.QueryRow(t.Context(), "SELECT pg_get_userbyid(datdba)::text FROM pg_database WHERE datname = 'legacy'").Scan(&owner); err != nil || owner != "postgres" {
			t.Errorf("%s: database legacy owned by %q (%v), want postgres", when, owner, err)
		}
		c := kit.ConnectAs(t, ns, "shop", "legacy", "shop-superuser")
		var n int
		if err := c.QueryRow(t.Context(), "SELECT count(*) FROM kept WHERE x = 42").Scan(&n); err != nil || n != 1 {
			t.Errorf("%s: legacy's rows: %d (%v), want 1", when, n, err)
		}
		_ = c.Close(t.Context())
	}

	kit.CreateDatabase(t, ns, "crm", "shop", pgv1.DatabaseSpec{Name: "crm"})
	got := kit.WaitDatabase(t, ns, "crm", pgv1.PhaseFailed, 2*time.Minute)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionRolesReady, "RoleExists", "role crm_rw exists in Postgres and was not created by setpoint")
	kit.CreateDatabase(t, ns, "legacy", "shop", pgv1.DatabaseSpec{Name: "legacy"})
	got = kit.WaitDatabase(t, ns, "legacy", pgv1.PhaseFailed, 2*time.Minute)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionDatabasesReady, "DatabaseExists", "database legacy exists in Postgres and was not created by setpoint")
	for _, name := range []string{"crm-crm", "legacy-legacy"} {
		if _, err := pg.CNPGV1().Databases(ns).Get(t.Context(), name, metav1.GetOptions{}); err == nil {
			t.Errorf("CNPG Database %s made for a database setpoint did not create", name)
		}
	}
	intact("refused")

	start := time.Now()
	kit.DeleteDatabase(t, ns, "crm")
	kit.DeleteDatabase(t, ns, "legacy")
	t.Logf("the refused PostgresDatabases deleted in %s", time.Since(start).Round(100*time.Millisecond))
	intact("after deletion with policy Delete")
	for _, r := range []string{"crm_admin", "legacy_admin", "legacy_rw"} {
		if exists(t, su, roleSQL, r) {
			t.Errorf("role %s, which setpoint made, left after its PostgresDatabase was deleted", r)
		}
	}
}
