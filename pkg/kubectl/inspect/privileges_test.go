package inspect

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// privilegesSpec: a reporting role that reads billing, which the admin
// owns; rw without grants there.
func privilegesSpec() pgv1.DatabaseSpec {
	return pgv1.DatabaseSpec{Name: "shop", Schemas: []pgv1.SchemaSpec{{Name: "billing"}},
		Roles: []pgv1.DatabaseRoleSpec{{Name: "reporting", Login: ptr(true), Grants: []pgv1.Grant{
			{Object: pgv1.GrantOnSchema, Schema: "billing", Privileges: []pgv1.Privilege{"USAGE"}},
			{Object: pgv1.GrantOnTables, Schema: "billing", Names: []string{"invoices", "ledger"}, Privileges: []pgv1.Privilege{"SELECT"}},
		}}}}
}

// privilegesCatalog is shop's catalog once the operator converged it,
// with what mutate changes.
func privilegesCatalog(mutate func(*grantplan.Catalog)) grantplan.Catalog {
	n := naming.Database("pgdb", "shop")
	w := grantplan.Declared(privilegesSpec(), n)
	db := grantplan.Object{Kind: grantplan.Database, Name: "shop", Owner: "shop_admin"}
	public := grantplan.Object{Kind: grantplan.Schema, Name: "public", Owner: "pg_database_owner"}
	billing := grantplan.Object{Kind: grantplan.Schema, Name: "billing", Owner: "shop_admin"}
	inv := grantplan.Object{Kind: grantplan.Table, Schema: "billing", Name: "invoices", Owner: "shop_admin"}
	// ledger is someone else's: setpoint grants nothing on it.
	ledger := grantplan.Object{Kind: grantplan.Table, Schema: "billing", Name: "ledger", Owner: "accounting"}
	c := grantplan.Catalog{DatabaseOwner: "shop_admin", Objects: []grantplan.Object{public, billing, inv, ledger}}
	hold := func(o grantplan.Object, role string, privs ...string) {
		for _, p := range privs {
			c.Held = append(c.Held, grantplan.Held{Object: o, Grantee: role, Privilege: p})
		}
	}
	hold(db, "shop_rw", "CONNECT", "TEMPORARY")
	hold(public, "shop_rw", "USAGE")
	hold(billing, "shop_reporting", "USAGE")
	hold(inv, "shop_reporting", "SELECT")
	c.Defaults = append(c.Defaults, w.Defaults...)
	if mutate != nil {
		mutate(&c)
	}
	return c
}

// Converged, the next pass runs nothing; what is declared on an object
// someone else owns differs and is left alone.
func TestPrivilegesConvergedShowsOnlyWhatIsLeftAlone(t *testing.T) {
	t.Parallel()
	n := naming.Database("pgdb", "shop")
	p := ComparePrivileges(privilegesSpec(), n, privilegesCatalog(nil))
	if !p.Exact || p.Statements != 0 {
		t.Fatalf("converged: exact %v, %d pending statements, want exact and 0", p.Exact, p.Statements)
	}
	var b bytes.Buffer
	if err := WritePrivileges(&b, []Privileges{p}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Database shop (kept exact",
		"1 of 2 role(s) hold what the spec declares; the next pass runs 0 statement(s).",
		"left alone: another role owns it",
		`left alone: TABLE "billing"."ledger" is owned by "accounting", not a role of setpoint's`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "shop_rw") || strings.Contains(out, `"invoices"`) {
		t.Errorf("converged output lists a line that matches:\n%s", out)
	}
	// The structured view lists every line, the held next to the declared.
	i := slices.IndexFunc(p.Roles, func(r RolePrivilege) bool { return r.Role == "shop_reporting" })
	if i < 0 {
		t.Fatalf("no shop_reporting in %+v", p.Roles)
	}
	found := false
	for _, l := range p.Roles[i].Lines {
		if l.On == `TABLE "billing"."invoices"` {
			found = slices.Equal(l.Declared, []string{"SELECT"}) && slices.Equal(l.Held, []string{"SELECT"})
		}
	}
	if !found {
		t.Errorf("shop_reporting's invoices line missing or wrong: %+v", p.Roles[i].Lines)
	}
}

func TestPrivilegesShowsDriftAndWhatTheNextPassDoes(t *testing.T) {
	t.Parallel()
	n := naming.Database("pgdb", "shop")
	cat := privilegesCatalog(func(c *grantplan.Catalog) {
		inv := grantplan.Object{Kind: grantplan.Table, Schema: "billing", Name: "invoices", Owner: "shop_admin"}
		ledger := grantplan.Object{Kind: grantplan.Table, Schema: "billing", Name: "ledger", Owner: "accounting"}
		// By hand: UPDATE and DELETE to reporting, SELECT with grant option
		// to rw on a table rw is declared nothing on; reporting's USAGE on
		// billing revoked; on ledger, someone else's, reporting holds
		// INSERT.
		c.Held = append(c.Held,
			grantplan.Held{Object: inv, Grantee: "shop_reporting", Privilege: "UPDATE"},
			grantplan.Held{Object: inv, Grantee: "shop_reporting", Privilege: "DELETE"},
			grantplan.Held{Object: inv, Grantee: "shop_rw", Privilege: "SELECT", Grantable: true},
			grantplan.Held{Object: ledger, Grantee: "shop_reporting", Privilege: "INSERT"},
		)
		c.Held = slices.DeleteFunc(c.Held, func(h grantplan.Held) bool {
			return h.Kind == grantplan.Schema && h.Name == "billing" && h.Grantee == "shop_reporting"
		})
	})
	p := ComparePrivileges(privilegesSpec(), n, cat)
	if p.Statements != 3 {
		t.Errorf("%d pending statements, want 3 (grant USAGE, revoke from reporting, revoke from rw)", p.Statements)
	}
	var b bytes.Buffer
	if err := WritePrivileges(&b, []Privileges{p}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Logf("\n%s", out)
	for _, want := range []string{
		"0 of 2 role(s) hold what the spec declares; the next pass runs 3 statement(s).",
		"ROLE ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 5 && strings.HasPrefix(f[0], "shop_") {
			lines[f[0]+" "+f[1]+" "+f[2]] = strings.Join(f[3:], " ")
		}
	}
	for key, want := range map[string]string{
		`shop_reporting SCHEMA "billing"`:           "USAGE - grant USAGE",
		`shop_reporting TABLE "billing"."invoices"`: "SELECT SELECT,UPDATE,DELETE revoke UPDATE,DELETE",
		`shop_reporting TABLE "billing"."ledger"`:   "SELECT INSERT left alone: another role owns it",
		`shop_rw TABLE "billing"."invoices"`:        "- SELECT revoke SELECT",
	} {
		if got := lines[key]; got != want {
			t.Errorf("line %s: %q, want %q", key, got, want)
		}
	}
	// A line that matches is not listed.
	if _, ok := lines[`shop_rw DATABASE "shop"`]; ok {
		t.Errorf("a line that matches is listed:\n%s", out)
	}
}

func TestPrivilegesOfADatabaseNotKeptExact(t *testing.T) {
	t.Parallel()
	n := naming.Database("pgdb", "plain")
	db := grantplan.Object{Kind: grantplan.Database, Name: "plain", Owner: "plain_admin"}
	cat := grantplan.Catalog{DatabaseOwner: "plain_admin",
		Objects: []grantplan.Object{{Kind: grantplan.Schema, Name: "public", Owner: "pg_database_owner"}},
		Held: []grantplan.Held{
			{Object: db, Grantee: "plain_rw", Privilege: "CONNECT"}, {Object: db, Grantee: "plain_rw", Privilege: "TEMPORARY"},
			{Object: db, Grantee: "plain_rw", Privilege: "CREATE"},
		}}
	p := ComparePrivileges(pgv1.DatabaseSpec{Name: "plain"}, n, cat)
	if p.Exact {
		t.Fatal("a database without schemas or roles is reported kept exact")
	}
	var b bytes.Buffer
	if err := WritePrivileges(&b, []Privileges{p}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"granted once per generation", "not corrected (would revoke CREATE)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
