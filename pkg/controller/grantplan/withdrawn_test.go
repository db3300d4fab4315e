package grantplan

import (
	"slices"
	"strings"
	"testing"
)

// An extra role removed from the spec is held to nothing: the plan
// revokes what it holds and the default privileges others gave it, and
// runs nothing else on a converged database.
func TestWithdrawnRoleIsRevoked(t *testing.T) {
	t.Parallel()
	d := shop()
	d.Roles = d.Roles[:1] // app leaves
	if got := Plan(Declared(d, shopNames), converged()).Statements; len(got) != 0 {
		t.Errorf("without the withdrawal, the plan touches the undeclared role: %q", got)
	}
	got := Plan(Withdrawn(d, shopNames, "shop_app"), converged()).Statements
	for _, want := range []string{
		`REVOKE CONNECT ON DATABASE "shop" FROM "shop_app"`,
		`REVOKE USAGE ON SCHEMA "billing" FROM "shop_app"`,
		`REVOKE SELECT, INSERT ON TABLE "billing"."invoices" FROM "shop_app"`,
		`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_migrator" IN SCHEMA "billing" REVOKE SELECT, INSERT ON TABLES FROM "shop_app"`,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("the withdrawal lacks %s:\n  %s", want, strings.Join(got, "\n  "))
		}
	}
	for _, s := range got {
		if !strings.Contains(s, "REVOKE") || !strings.HasSuffix(s, `FROM "shop_app"`) {
			t.Errorf("the withdrawal of shop_app runs %s", s)
		}
	}
}

// A schema owner withdrawn, its schema given back to admin in the same
// change: the schema changes owner, and the default privileges the
// withdrawn role gave the read-only role on its future tables are
// revoked (a role that gives some cannot be dropped).
func TestWithdrawnOwnerGivesUpItsDefaults(t *testing.T) {
	t.Parallel()
	d := shop()
	d.Schemas[0].Owner = "admin"
	d.Roles = d.Roles[1:] // migrator leaves
	got := Plan(Withdrawn(d, shopNames, "shop_migrator"), converged()).Statements
	for _, want := range []string{
		`ALTER SCHEMA "billing" OWNER TO "shop_admin"`,
		`REVOKE CONNECT ON DATABASE "shop" FROM "shop_migrator"`,
		`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_migrator" IN SCHEMA "billing" REVOKE SELECT ON TABLES FROM "shop_ro"`,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("the withdrawal lacks %s:\n  %s", want, strings.Join(got, "\n  "))
		}
	}
}

// On a real PostgreSQL: once the withdrawal ran as the owner, the role
// can be dropped (what CloudNativePG then does), and nothing declared
// moved.
func TestWithdrawnRoleCanBeDroppedOnPostgres(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	su := s.must(t, "postgres", "postgres")
	exec1(t, su,
		`CREATE ROLE shop_admin LOGIN`, `CREATE ROLE shop_rw LOGIN`, `CREATE ROLE shop_ro LOGIN`,
		`CREATE ROLE shop_migrator LOGIN`, `CREATE ROLE shop_app LOGIN`,
		`GRANT shop_migrator, shop_app TO shop_admin`,
		`CREATE DATABASE shop OWNER shop_admin`)
	sushop := s.must(t, "postgres", "shop")
	admin := s.must(t, "shop_admin", "shop")
	apply(t, admin, Declared(shop(), shopNames))
	exec1(t, s.must(t, "shop_migrator", "shop"), `CREATE TABLE billing.invoices (id int)`)

	d := shop()
	d.Roles = d.Roles[:1] // app leaves
	if _, err := sushop.Exec(t.Context(), `DROP ROLE shop_app`); sqlstate(err) != "2BP01" {
		t.Fatalf("before the withdrawal, DROP ROLE shop_app: %v, want 2BP01 (dependent objects)", err)
	}
	apply(t, admin, Withdrawn(d, shopNames, "shop_app"))
	if _, err := su.Exec(t.Context(), `DROP ROLE shop_app`); err != nil {
		t.Fatalf("after the withdrawal, DROP ROLE shop_app: %v", err)
	}
	if again := Plan(Declared(d, shopNames), read(t, admin, Declared(d, shopNames))); len(again.Statements) != 0 {
		t.Errorf("the withdrawal moved what is declared: %q", again.Statements)
	}
	check(t, s.must(t, "shop_ro", "shop"), "", `SELECT * FROM billing.invoices`)
}
