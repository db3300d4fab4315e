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
