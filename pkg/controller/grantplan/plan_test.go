package grantplan

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// shop is a database with the model: billing owned by the
// migration role, an app role, a read-only role.
func shop() pgv1.DatabaseSpec {
	return pgv1.DatabaseSpec{
		Name:         "shop",
		ReadOnlyRole: true,
		Schemas:      []pgv1.SchemaSpec{{Name: "billing", Owner: "migrator"}},
		Roles: []pgv1.DatabaseRoleSpec{
			{Name: "migrator", Login: ptr.To(true), Grants: []pgv1.Grant{
				{Object: pgv1.GrantOnDatabase, Privileges: []pgv1.Privilege{"CONNECT"}},
			}},
			{Name: "app", Login: ptr.To(true), Grants: []pgv1.Grant{
				{Object: pgv1.GrantOnDatabase, Privileges: []pgv1.Privilege{"CONNECT"}},
				{Object: pgv1.GrantOnSchema, Schema: "billing", Privileges: []pgv1.Privilege{"USAGE"}},
				{Object: pgv1.GrantOnTables, Schema: "billing", Privileges: []pgv1.Privilege{"SELECT", "INSERT"}},
			}},
		},
	}
}

var shopNames = naming.Database("pgdb", "shop")

// tbl, seq and fn are catalog objects.
func tbl(schema, name, owner string) Object {
	return Object{Kind: Table, Schema: schema, Name: name, Owner: owner}
}

func schema(name, owner string) Object { return Object{Kind: Schema, Name: name, Owner: owner} }

func held(o Object, grantee string, privs ...string) []Held {
	var out []Held
	for _, p := range privs {
		out = append(out, Held{Object: o, Grantee: grantee, Privilege: p})
	}
	return out
}

// converged is the catalog of shop once its plan has run, with one table
// in billing (owned by the migrator) and one in public (by the admin).
func converged() Catalog {
	inv := tbl("billing", "invoices", "shop_migrator")
	items := tbl("public", "items", "shop_admin")
	db := Object{Kind: Database, Name: "shop", Owner: "shop_admin"}
	c := Catalog{
		DatabaseOwner: "shop_admin",
		Objects:       []Object{schema("public", "pg_database_owner"), schema("billing", "shop_migrator"), inv, items},
	}
	for _, h := range [][]Held{
		held(db, "shop_rw", "CONNECT", "TEMPORARY"), held(db, "shop_ro", "CONNECT", "TEMPORARY"),
		held(db, "shop_migrator", "CONNECT"), held(db, "shop_app", "CONNECT"),
		held(schema("public", "pg_database_owner"), "shop_rw", "USAGE"),
		held(schema("public", "pg_database_owner"), "shop_ro", "USAGE"),
		held(schema("billing", "shop_migrator"), "shop_ro", "USAGE"),
		held(schema("billing", "shop_migrator"), "shop_app", "USAGE"),
		held(items, "shop_rw", "SELECT", "INSERT", "UPDATE", "DELETE"), held(items, "shop_ro", "SELECT"),
		held(inv, "shop_ro", "SELECT"), held(inv, "shop_app", "SELECT", "INSERT"),
	} {
		c.Held = append(c.Held, h...)
	}
	for _, d := range Declared(shop(), shopNames).Defaults {
		c.Defaults = append(c.Defaults, d)
	}
	return c
}

func TestConvergedDatabaseRunsNothing(t *testing.T) {
	t.Parallel()
	r := Plan(Declared(shop(), shopNames), converged())
	if len(r.Statements)+len(r.Revoked)+len(r.Skipped) != 0 {
		t.Errorf("a converged database plans %q, revokes %q, skips %q", r.Statements, r.Revoked, r.Skipped)
	}
}

// The plan of each case is compared whole, in order.
func TestPlan(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		spec    func(*pgv1.DatabaseSpec)
		catalog func(*Catalog)
		want    []string
		revoked []string
		skipped []string
		kept    []string
	}{
		{name: "new database", catalog: func(c *Catalog) {
			*c = Catalog{DatabaseOwner: "shop_admin", Objects: []Object{schema("public", "pg_database_owner")}}
		}, want: []string{
			`CREATE SCHEMA "billing" AUTHORIZATION "shop_migrator"`,
			`GRANT CONNECT ON DATABASE "shop" TO "shop_app"`,
			`GRANT CONNECT ON DATABASE "shop" TO "shop_migrator"`,
			`GRANT CONNECT, TEMPORARY ON DATABASE "shop" TO "shop_ro"`,
			`GRANT CONNECT, TEMPORARY ON DATABASE "shop" TO "shop_rw"`,
			`GRANT USAGE ON SCHEMA "billing" TO "shop_app"`,
			`GRANT USAGE ON SCHEMA "billing" TO "shop_ro"`,
			`GRANT USAGE ON SCHEMA "public" TO "shop_ro"`,
			`GRANT USAGE ON SCHEMA "public" TO "shop_rw"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "billing" GRANT SELECT, INSERT ON TABLES TO "shop_app"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "billing" GRANT SELECT ON TABLES TO "shop_ro"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "public" GRANT SELECT ON TABLES TO "shop_ro"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "public" GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO "shop_rw"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_migrator" IN SCHEMA "billing" GRANT SELECT, INSERT ON TABLES TO "shop_app"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_migrator" IN SCHEMA "billing" GRANT SELECT ON TABLES TO "shop_ro"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "billing" GRANT SELECT ON SEQUENCES TO "shop_ro"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "public" GRANT SELECT ON SEQUENCES TO "shop_ro"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "public" GRANT USAGE, SELECT ON SEQUENCES TO "shop_rw"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_migrator" IN SCHEMA "billing" GRANT SELECT ON SEQUENCES TO "shop_ro"`,
		}},
		{name: "a grant removed from the spec is revoked", spec: func(d *pgv1.DatabaseSpec) {
			d.Roles[1].Grants[2].Privileges = []pgv1.Privilege{"SELECT"}
		}, want: []string{
			`REVOKE INSERT ON TABLE "billing"."invoices" FROM "shop_app"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "billing" REVOKE INSERT ON TABLES FROM "shop_app"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_migrator" IN SCHEMA "billing" REVOKE INSERT ON TABLES FROM "shop_app"`,
		}, revoked: []string{
			`INSERT ON TABLE "billing"."invoices" FROM "shop_app"`,
			`default INSERT ON TABLES of "shop_admin" IN SCHEMA "billing" FROM "shop_app"`,
			`default INSERT ON TABLES of "shop_migrator" IN SCHEMA "billing" FROM "shop_app"`,
		}},
		{name: "a role removed from the spec keeps its privileges until it is dropped", spec: func(d *pgv1.DatabaseSpec) {
			d.Roles = d.Roles[:1]
		}, want: nil},
		{name: "hand-made drift is revoked", catalog: func(c *Catalog) {
			inv := tbl("billing", "invoices", "shop_migrator")
			c.Held = append(c.Held, held(inv, "shop_app", "TRUNCATE", "DELETE")...)
			c.Held = append(c.Held, held(schema("billing", "shop_migrator"), "shop_ro", "CREATE")...)
			c.Held = append(c.Held, held(Object{Kind: Database, Name: "shop"}, "shop_ro", "CREATE")...)
			c.Defaults = append(c.Defaults, Default{Owner: "shop_admin", On: Table, Grantee: "shop_ro", Privilege: "DELETE"})
		}, want: []string{
			`REVOKE CREATE ON DATABASE "shop" FROM "shop_ro"`,
			`REVOKE CREATE ON SCHEMA "billing" FROM "shop_ro"`,
			`REVOKE DELETE, TRUNCATE ON TABLE "billing"."invoices" FROM "shop_app"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" REVOKE DELETE ON TABLES FROM "shop_ro"`,
		}, revoked: []string{
			`CREATE ON DATABASE "shop" FROM "shop_ro"`,
			`CREATE ON SCHEMA "billing" FROM "shop_ro"`,
			`DELETE ON TABLE "billing"."invoices" FROM "shop_app"`,
			`TRUNCATE ON TABLE "billing"."invoices" FROM "shop_app"`,
			`default DELETE ON TABLES of "shop_admin" FROM "shop_ro"`,
		}},
		{name: "a hand-revoked grant is granted again", catalog: func(c *Catalog) {
			c.Held = slices.DeleteFunc(c.Held, func(h Held) bool { return h.Grantee == "shop_rw" && h.Name == "items" && h.Privilege == "UPDATE" })
			c.Defaults = slices.DeleteFunc(c.Defaults, func(d Default) bool { return d.Grantee == "shop_ro" && d.On == Sequence })
		}, want: []string{
			`GRANT UPDATE ON TABLE "public"."items" TO "shop_rw"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "billing" GRANT SELECT ON SEQUENCES TO "shop_ro"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "public" GRANT SELECT ON SEQUENCES TO "shop_ro"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_migrator" IN SCHEMA "billing" GRANT SELECT ON SEQUENCES TO "shop_ro"`,
		}},
		{name: "a grant option given by hand is taken back", catalog: func(c *Catalog) {
			for i, h := range c.Held {
				if h.Grantee == "shop_app" && h.Name == "invoices" && h.Privilege == "SELECT" {
					c.Held[i].Grantable = true
				}
			}
			for i, d := range c.Defaults {
				if d.Grantee == "shop_ro" && d.On == Table && d.Owner == "shop_migrator" {
					c.Defaults[i].Grantable = true
				}
			}
		}, want: []string{
			`REVOKE GRANT OPTION FOR SELECT ON TABLE "billing"."invoices" FROM "shop_app"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_migrator" IN SCHEMA "billing" REVOKE GRANT OPTION FOR SELECT ON TABLES FROM "shop_ro"`,
		}, revoked: []string{
			`GRANT OPTION FOR SELECT ON TABLE "billing"."invoices" FROM "shop_app"`,
			`default GRANT OPTION FOR SELECT ON TABLES of "shop_migrator" IN SCHEMA "billing" FROM "shop_ro"`,
		}},
		{name: "objects owned by others are left alone", catalog: func(c *Catalog) {
			theirs := tbl("billing", "audit", "someone")
			c.Objects = append(c.Objects, theirs)
			// Held by our role on their table: not ours to revoke.
			c.Held = append(c.Held, held(theirs, "shop_app", "TRUNCATE")...)
			// Their default privileges for our role: not ours to change.
			c.Defaults = append(c.Defaults, Default{Owner: "someone", On: Table, Grantee: "shop_app", Privilege: "SELECT"})
		}, want: nil, skipped: []string{
			`TABLE "billing"."audit" is owned by "someone", not a role of setpoint's`,
		}},
		{name: "roles setpoint did not create are left alone", catalog: func(c *Catalog) {
			inv := tbl("billing", "invoices", "shop_migrator")
			c.Held = append(c.Held, held(inv, "reporting", "SELECT", "DELETE")...)
			c.Held = append(c.Held, held(inv, "other_rw", "SELECT")...)
			c.Defaults = append(c.Defaults, Default{Owner: "shop_admin", On: Table, Grantee: "reporting", Privilege: "SELECT"})
		}, want: nil},
		{name: "the owner's own privileges are not managed", catalog: func(c *Catalog) {
			inv := tbl("billing", "invoices", "shop_migrator")
			c.Held = append(c.Held, held(inv, "shop_migrator", "SELECT", "TRUNCATE")...)
			c.Held = append(c.Held, held(schema("billing", "shop_migrator"), "shop_migrator", "USAGE", "CREATE")...)
		}, want: nil},
		{name: "a schema owned by a role of setpoint's goes to its declared owner", catalog: func(c *Catalog) {
			c.Objects[1].Owner = "shop_admin"
			for i := range c.Held {
				if c.Held[i].Kind == Schema && c.Held[i].Name == "billing" {
					c.Held[i].Owner = "shop_admin"
				}
			}
		}, want: []string{`ALTER SCHEMA "billing" OWNER TO "shop_migrator"`}},
		{name: "a schema owned by someone else is left alone", catalog: func(c *Catalog) {
			c.Objects[1].Owner = "someone"
			c.Objects = slices.DeleteFunc(c.Objects, func(o Object) bool { return o.Name == "invoices" })
			c.Held = slices.DeleteFunc(c.Held, func(h Held) bool { return h.Schema == "billing" || h.Name == "billing" })
		}, want: nil, skipped: []string{
			`schema "billing" is owned by "someone", not a role of setpoint's`,
			`SCHEMA "billing" is owned by "someone", not a role of setpoint's`,
		}},
		{name: "a schema removed from the spec is kept, its grants revoked", spec: func(d *pgv1.DatabaseSpec) {
			d.Schemas = nil
			d.Roles[1].Grants = d.Roles[1].Grants[:1]
		}, kept: []string{"billing"}, want: []string{
			`REVOKE USAGE ON SCHEMA "billing" FROM "shop_app"`,
			`REVOKE USAGE ON SCHEMA "billing" FROM "shop_ro"`,
			`REVOKE SELECT, INSERT ON TABLE "billing"."invoices" FROM "shop_app"`,
			`REVOKE SELECT ON TABLE "billing"."invoices" FROM "shop_ro"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "billing" REVOKE SELECT, INSERT ON TABLES FROM "shop_app"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "billing" REVOKE SELECT ON TABLES FROM "shop_ro"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_migrator" IN SCHEMA "billing" REVOKE SELECT, INSERT ON TABLES FROM "shop_app"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_migrator" IN SCHEMA "billing" REVOKE SELECT ON TABLES FROM "shop_ro"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "billing" REVOKE SELECT ON SEQUENCES FROM "shop_ro"`,
			`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_migrator" IN SCHEMA "billing" REVOKE SELECT ON SEQUENCES FROM "shop_ro"`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := shop()
			if tc.spec != nil {
				tc.spec(&d)
			}
			c := converged()
			if tc.catalog != nil {
				tc.catalog(&c)
			}
			r := Plan(Declared(d, shopNames), c)
			equal(t, "statements", r.Statements, tc.want)
			if tc.revoked != nil || tc.want == nil {
				equal(t, "revoked", r.Revoked, tc.revoked)
			}
			equal(t, "skipped", r.Skipped, tc.skipped)
			equal(t, "kept", r.Kept, tc.kept)
		})
	}
}

// Every privilege the API accepts, on every kind of object, is granted,
// and revoked once the spec drops it.
func TestPlanEveryPrivilegeKind(t *testing.T) {
	t.Parallel()
	all := func(ps ...pgv1.Privilege) []pgv1.Privilege { return ps }
	d := pgv1.DatabaseSpec{Name: "shop", Schemas: []pgv1.SchemaSpec{{Name: "billing"}}, Roles: []pgv1.DatabaseRoleSpec{{Name: "x",
		Grants: []pgv1.Grant{
			{Object: pgv1.GrantOnDatabase, Privileges: all("CONNECT", "TEMPORARY", "CREATE")},
			{Object: pgv1.GrantOnSchema, Schema: "billing", Privileges: all("USAGE", "CREATE")},
			{Object: pgv1.GrantOnTables, Schema: "billing", Names: []string{"t"},
				Privileges: all("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")},
			{Object: pgv1.GrantOnSequences, Schema: "billing", Privileges: all("USAGE", "SELECT", "UPDATE")},
			{Object: pgv1.GrantOnFunctions, Schema: "billing", Privileges: all("EXECUTE")},
		},
		DefaultPrivileges: []pgv1.DefaultPrivileges{
			{Owner: "admin", Schema: "billing", Object: pgv1.GrantOnTables, Privileges: all("TRUNCATE", "REFERENCES", "TRIGGER")},
			{Owner: "admin", Schema: "billing", Object: pgv1.GrantOnFunctions, Privileges: all("EXECUTE")},
		}}}}
	c := Catalog{DatabaseOwner: "shop_admin", Objects: []Object{
		schema("public", "pg_database_owner"), schema("billing", "shop_admin"),
		tbl("billing", "t", "shop_admin"), tbl("billing", "v", "shop_admin"),
		{Kind: Sequence, Schema: "billing", Name: "t_id_seq", Owner: "shop_admin"},
		{Kind: Function, Schema: "billing", Name: "total", Args: "customer integer, since date", Owner: "shop_admin"},
		{Kind: Procedure, Schema: "billing", Name: "close_month", Owner: "shop_admin"},
	}}
	r := Plan(Declared(d, shopNames), c)
	for _, s := range []string{
		`GRANT CONNECT, TEMPORARY, CREATE ON DATABASE "shop" TO "shop_x"`,
		`GRANT CREATE, USAGE ON SCHEMA "billing" TO "shop_x"`,
		`GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON TABLE "billing"."t" TO "shop_x"`,
		`GRANT USAGE, SELECT, UPDATE ON SEQUENCE "billing"."t_id_seq" TO "shop_x"`,
		`GRANT EXECUTE ON FUNCTION "billing"."total"(customer integer, since date) TO "shop_x"`,
		`GRANT EXECUTE ON PROCEDURE "billing"."close_month"() TO "shop_x"`,
		`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "billing" GRANT TRUNCATE, REFERENCES, TRIGGER ON TABLES TO "shop_x"`,
		`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "billing" GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO "shop_x"`,
		`ALTER DEFAULT PRIVILEGES FOR ROLE "shop_admin" IN SCHEMA "billing" GRANT EXECUTE ON FUNCTIONS TO "shop_x"`,
	} {
		if !slices.Contains(r.Statements, s) {
			t.Errorf("no statement\n  %s\nin\n  %s", s, strings.Join(r.Statements, "\n  "))
		}
	}
	for _, s := range r.Statements {
		if strings.Contains(s, `"billing"."v"`) {
			t.Errorf("a grant naming table t reached table v: %s", s)
		}
	}

	// Held as granted, nothing to do; the spec emptied, everything revoked.
	converged := Catalog{DatabaseOwner: c.DatabaseOwner, Objects: c.Objects}
	w := Declared(d, shopNames)
	for _, s := range Plan(w, Catalog{DatabaseOwner: c.DatabaseOwner, Objects: c.Objects}).Statements {
		held, ok := heldBy(s, c.Objects)
		if ok {
			converged.Held = append(converged.Held, held...)
		}
	}
	converged.Defaults = w.Defaults
	if again := Plan(w, converged).Statements; len(again) != 0 {
		t.Errorf("once granted, the plan still runs %q", again)
	}
	d.Roles[0].Grants, d.Roles[0].DefaultPrivileges = nil, nil
	revoke := Plan(Declared(d, shopNames), converged)
	if n := len(revoke.Statements); n != 9 {
		t.Errorf("the spec emptied revokes with %d statements, want 9 (6 objects, 3 default privileges):\n  %s", n, strings.Join(revoke.Statements, "\n  "))
	}
	for _, s := range revoke.Statements {
		if !strings.Contains(s, "REVOKE") {
			t.Errorf("the spec emptied plans %s", s)
		}
	}
}

// heldBy is what GRANT statement s gives, as the catalog would show it.
func heldBy(s string, objects []Object) ([]Held, bool) {
	rest, ok := strings.CutPrefix(s, "GRANT ")
	if !ok {
		return nil, false
	}
	privs, rest, _ := strings.Cut(rest, " ON ")
	on, grantee, _ := strings.Cut(rest, " TO ")
	grantee = strings.Trim(grantee, `"`)
	objects = append(objects, Object{Kind: Database, Name: "shop", Owner: "shop_admin"})
	for _, o := range objects {
		if o.sql() == on {
			return held(o, grantee, strings.Split(privs, ", ")...), true
		}
	}
	return nil, false
}

// Names are quoted whatever they hold: a double quote, unicode, 63 bytes,
// SQL keywords; nothing in a name can end the identifier.
func TestPlanQuotesOddNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 31) + "x" // 63 bytes
	odd := []string{`we"ird`, "café", long, "select", `a"; DROP TABLE x; --`, "Mixed Case"}
	d := pgv1.DatabaseSpec{Name: "shop", Roles: []pgv1.DatabaseRoleSpec{{Name: "app", Grants: []pgv1.Grant{
		{Object: pgv1.GrantOnTables, Schema: "public", Names: append(odd, "missing"), Privileges: []pgv1.Privilege{"SELECT"}},
	}}}}
	c := Catalog{DatabaseOwner: "shop_admin", Objects: []Object{schema("public", "pg_database_owner")}}
	for _, n := range odd {
		c.Objects = append(c.Objects, tbl("public", n, "shop_admin"))
	}
	c.Objects = append(c.Objects, Object{Kind: Function, Schema: "public", Name: `f"n`, Args: `x "my type"`, Owner: "shop_admin"})
	c.Held = held(c.Objects[len(c.Objects)-1], "shop_app", "EXECUTE")
	r := Plan(Declared(d, shopNames), c)
	for _, want := range []string{
		`GRANT SELECT ON TABLE "public"."we""ird" TO "shop_app"`,
		`GRANT SELECT ON TABLE "public"."café" TO "shop_app"`,
		`GRANT SELECT ON TABLE "public"."` + long + `" TO "shop_app"`,
		`GRANT SELECT ON TABLE "public"."select" TO "shop_app"`,
		`GRANT SELECT ON TABLE "public"."a""; DROP TABLE x; --" TO "shop_app"`,
		`GRANT SELECT ON TABLE "public"."Mixed Case" TO "shop_app"`,
		`REVOKE EXECUTE ON FUNCTION "public"."f""n"(x "my type") FROM "shop_app"`,
	} {
		if !slices.Contains(r.Statements, want) {
			t.Errorf("no statement\n  %s\nin\n  %s", want, strings.Join(r.Statements, "\n  "))
		}
	}
	equal(t, "skipped", r.Skipped, []string{`table "public"."missing" does not exist`})

	// A role name with a quote (a PostgresDatabase's database names cannot
	// hold one, but the planner does not rely on it).
	w := Want{Database: `d"b`, Owner: `o"wn`, Roles: []string{`r"o`}, Managed: []string{`o"wn`, `r"o`},
		Schemas: []SchemaOwner{{Name: `s"c`, Owner: `o"wn`}},
		Grants:  []Grant{{Role: `r"o`, On: Database, Privileges: []string{"CONNECT"}}}}
	equal(t, "statements", Plan(w, Catalog{DatabaseOwner: `o"wn`}).Statements, []string{
		`CREATE SCHEMA "s""c" AUTHORIZATION "o""wn"`,
		`GRANT CONNECT ON DATABASE "d""b" TO "r""o"`,
	})
}

// Declared gives the fixed roles what grantPlan gives them on public, the
// read-only role every declared schema, and the extra roles their spec.
func TestDeclared(t *testing.T) {
	t.Parallel()
	w := Declared(shop(), shopNames)
	equal(t, "roles", w.Roles, []string{"shop_rw", "shop_ro", "shop_migrator", "shop_app"})
	equal(t, "managed", w.Managed, []string{"shop_admin", "shop_rw", "shop_ro", "shop_migrator", "shop_app"})
	if got := w.Schemas; len(got) != 1 || got[0] != (SchemaOwner{Name: "billing", Owner: "shop_migrator"}) {
		t.Errorf("schemas = %+v", got)
	}
	var ro []string
	for _, g := range w.Grants {
		if g.Role == "shop_ro" && g.On != Database {
			ro = append(ro, g.Schema+" "+string(g.On)+" "+strings.Join(g.Privileges, ","))
		}
	}
	equal(t, "ro's grants", ro, []string{"public schema USAGE", "public table SELECT", "public sequence SELECT",
		"billing schema USAGE", "billing table SELECT", "billing sequence SELECT"})

	d := shop()
	d.ReadOnlyRole = false
	d.Roles = append(d.Roles, pgv1.DatabaseRoleSpec{Name: "rw", Grants: []pgv1.Grant{
		{Object: pgv1.GrantOnSchema, Schema: "billing", Privileges: []pgv1.Privilege{"USAGE"}}}})
	w = Declared(d, shopNames)
	equal(t, "roles without ro, with an rw entry", w.Roles, []string{"shop_rw", "shop_migrator", "shop_app"})
	if !slices.ContainsFunc(w.Grants, func(g Grant) bool { return g.Role == "shop_rw" && g.Schema == "billing" }) {
		t.Errorf("the rw entry's grant is not declared: %+v", w.Grants)
	}
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %s\n want %s", what, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

// Lines compare every declared or held privilege; on a converged
// database none differs, and a hand-made grant differs by what the plan
// revokes.
func TestLinesShowWhatThePlanDoes(t *testing.T) {
	t.Parallel()
	w := Declared(shop(), shopNames)
	if r := Plan(w, converged()); len(r.Lines) == 0 || slices.ContainsFunc(r.Lines, Line.Differs) {
		t.Errorf("converged lines %+v: want some, none differing", r.Lines)
	}
	c := converged()
	c.Held = append(c.Held, held(tbl("billing", "invoices", "shop_migrator"), "shop_app", "DELETE")...)
	r := Plan(w, c)
	i := slices.IndexFunc(r.Lines, Line.Differs)
	if i < 0 {
		t.Fatalf("no line differs: %+v", r.Lines)
	}
	l := r.Lines[i]
	if l.Role != "shop_app" || l.On != `TABLE "billing"."invoices"` || !slices.Equal(l.Revoke, []string{"DELETE"}) ||
		!slices.Equal(l.Declared, []string{"SELECT", "INSERT"}) || !slices.Equal(l.Held, []string{"SELECT", "INSERT", "DELETE"}) {
		t.Errorf("line %+v", l)
	}
}
