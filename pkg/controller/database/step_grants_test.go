package database

import (
	"errors"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
)

func privilegesCondition(t *testing.T, f *fixture) *pgv1.PostgresDatabase {
	t.Helper()
	db := f.db("shop")
	if c := meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionPrivilegesReady); c == nil {
		t.Fatal("no PrivilegesReady condition")
	}
	return db
}

// A declared schema is created, owned by admin, in the same transaction
// as the grants; the read-only role reads it and rw gets its declared
// grant; a converged resync reads and runs nothing.
func TestDeclaredSchemaAndGrantsApplied(t *testing.T) {
	t.Parallel()
	spec := pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true, Schemas: []pgv1.SchemaSpec{{Name: "billing", Owner: "admin"}},
		Roles: []pgv1.DatabaseRoleSpec{{Name: "rw", Grants: []pgv1.Grant{
			{Object: pgv1.GrantOnSchema, Schema: "billing", Privileges: []pgv1.Privilege{"USAGE"}}}}}}
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", spec)})
	f.sql.held = &grantplan.Catalog{DatabaseOwner: "orders_admin",
		Objects: []grantplan.Object{{Kind: grantplan.Schema, Name: "public", Owner: "pg_database_owner"}}}
	converge(t, f, "shop")
	last := f.sql.execs[len(f.sql.execs)-1]
	if last.target.User != "orders_admin" || last.target.Database != "orders" {
		t.Errorf("the grants ran as %s in %s, want the owner orders_admin in orders", last.target.User, last.target.Database)
	}
	stmts := last.stmts
	for _, want := range []string{
		`GRANT CONNECT, TEMPORARY ON DATABASE "orders" TO "orders_rw"`, // grantPlan's, in the same transaction
		`CREATE SCHEMA "billing" AUTHORIZATION "orders_admin"`,
		`GRANT USAGE ON SCHEMA "billing" TO "orders_ro"`,
		`GRANT USAGE ON SCHEMA "billing" TO "orders_rw"`,
		`ALTER DEFAULT PRIVILEGES FOR ROLE "orders_admin" IN SCHEMA "billing" GRANT SELECT ON TABLES TO "orders_ro"`,
	} {
		if !slices.Contains(stmts, want) {
			t.Errorf("the transaction lacks %s:\n  %s", want, strings.Join(stmts, "\n  "))
		}
	}
	c := meta.FindStatusCondition(privilegesCondition(t, f).Status.Conditions, pgv1.ConditionPrivilegesReady)
	if c.Reason != pgv1.ReasonPrivilegesIsolated || !strings.Contains(c.Message, "the last apply ran") {
		t.Errorf("PrivilegesReady = %s: %s", c.Reason, c.Message)
	}

	// Converged: the catalog now holds what was declared.
	f.sql.held = nil
	execs := len(f.sql.execs)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.sql.execs) - execs; n != 0 {
		t.Errorf("a converged resync ran %d transaction(s): %v", n, f.sql.execs[execs:])
	}
}

// A privilege granted by hand to a role of setpoint's is revoked, and
// reported: a Warning Event and the condition's reason.
func TestHandGrantIsRevokedAndReported(t *testing.T) {
	t.Parallel()
	f := driftedFixture(t)
	execs := len(f.sql.execs)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.sql.execs) - execs; n != 1 {
		t.Fatalf("the drift ran %d transaction(s), want 1", n)
	}
	if got := f.sql.execs[execs].stmts; !slices.Equal(got, []string{`REVOKE TRUNCATE ON TABLE "public"."items" FROM "orders_rw"`}) {
		t.Errorf("drift plan = %q", got)
	}
	c := meta.FindStatusCondition(f.db("shop").Status.Conditions, pgv1.ConditionPrivilegesReady)
	if c.Reason != pgv1.ReasonPrivilegesDriftReverted || !strings.Contains(c.Message, `TRUNCATE ON TABLE "public"."items" FROM "orders_rw" in database orders`) {
		t.Errorf("PrivilegesReady = %s: %s", c.Reason, c.Message)
	}
	if ev := f.events(); !slices.ContainsFunc(ev, func(e string) bool {
		return strings.HasPrefix(e, "Warning PrivilegesDriftReverted") && strings.Contains(e, "TRUNCATE")
	}) {
		t.Errorf("no drift Event: %q", ev)
	}
	if db := f.db("shop"); db.Status.Phase != pgv1.PhaseReady {
		t.Errorf("phase %s after drift was revoked", db.Status.Phase)
	}
}

// driftedFixture is PostgresDatabase shop converged with database orders,
// which declares a schema (so its privileges are read and kept exact on
// every pass), and whose catalog now holds a grant made by hand.
func driftedFixture(t *testing.T) *fixture {
	t.Helper()
	spec := pgv1.DatabaseSpec{Name: "orders", Schemas: []pgv1.SchemaSpec{{Name: "billing", Owner: "admin"}}}
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", spec)})
	converge(t, f, "shop")
	f.events()
	f.sql.held = driftCatalog(spec)
	return f
}

// driftCatalog is the catalog of spec's database "orders" of PostgresDatabase
// shop as converged, plus TRUNCATE on table public.items granted by hand to
// orders_rw.
func driftCatalog(spec pgv1.DatabaseSpec) *grantplan.Catalog {
	items := grantplan.Object{Kind: grantplan.Table, Schema: "public", Name: "items", Owner: "orders_admin"}
	cat := grantplan.Catalog{DatabaseOwner: "orders_admin",
		Objects: []grantplan.Object{{Kind: grantplan.Schema, Name: "public", Owner: "pg_database_owner"},
			{Kind: grantplan.Schema, Name: "billing", Owner: "orders_admin"}, items}}
	w := grantplan.Declared(spec, naming.Database("shop", "orders"))
	cat.Defaults = w.Defaults
	for _, g := range w.Grants {
		o := grantplan.Object{Kind: g.On, Name: g.Schema, Owner: "orders_admin"}
		switch g.On {
		case grantplan.Database:
			o.Name = "orders"
		case grantplan.Table:
			o = items
		case grantplan.Sequence:
			continue
		}
		for _, p := range g.Privileges {
			cat.Held = append(cat.Held, grantplan.Held{Object: o, Grantee: g.Role, Privilege: p})
		}
	}
	cat.Held = append(cat.Held, grantplan.Held{Object: items, Grantee: "orders_rw", Privilege: "TRUNCATE"})
	return &cat
}

// The pass that revokes drift loses its status write (a conflict with a
// newer resourceVersion): the next pass, which finds nothing to revoke,
// still reports the drift, and once the stored condition shows it, a pass
// writes nothing.
func TestDriftReportSurvivesALostStatusWrite(t *testing.T) {
	t.Parallel()
	f := driftedFixture(t)
	conflict := apierrors.NewConflict(schema.GroupResource{Group: pgv1.GroupName, Resource: "postgresdatabases"}, "shop", errors.New("the object has been modified"))
	f.api.Fail(ct.Fault{Verb: "update", Resource: "postgresdatabases", Subresource: "status", Times: 1, Err: conflict})
	if _, err := f.sync("shop"); !apierrors.IsConflict(err) {
		t.Fatalf("the revoking pass returned %v, want its status write's conflict", err)
	}
	if ev := f.events(); !slices.ContainsFunc(ev, func(e string) bool { return strings.HasPrefix(e, "Warning PrivilegesDriftReverted") }) {
		t.Fatalf("the revoking pass sent no drift Event: %q", ev)
	}
	if c := meta.FindStatusCondition(f.db("shop").Status.Conditions, pgv1.ConditionPrivilegesReady); c.Reason != pgv1.ReasonPrivilegesIsolated {
		t.Fatalf("the lost write left PrivilegesReady = %s, want the stored PrivilegesIsolated", c.Reason)
	}

	// Converged: nothing left to revoke.
	f.sql.held = nil
	execs := len(f.sql.execs)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.sql.execs) - execs; n != 0 {
		t.Errorf("the pass after the revoke ran %d transaction(s)", n)
	}
	c := meta.FindStatusCondition(f.db("shop").Status.Conditions, pgv1.ConditionPrivilegesReady)
	if c.Reason != pgv1.ReasonPrivilegesDriftReverted || !strings.Contains(c.Message, `TRUNCATE ON TABLE "public"."items" FROM "orders_rw" in database orders`) {
		t.Errorf("after the lost write, PrivilegesReady = %s: %s", c.Reason, c.Message)
	}
	if !strings.Contains(c.Message, "the last apply ran 1 statement(s)") {
		t.Errorf("the report does not count the revoking pass's statement: %s", c.Message)
	}
	if ev := f.events(); slices.ContainsFunc(ev, func(e string) bool { return strings.Contains(e, "PrivilegesDriftReverted") }) {
		t.Errorf("the report sent the drift Event again: %q", ev)
	}

	// Reported: the next pass keeps it, writes nothing, and forgets it.
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); len(w) != 0 {
		t.Errorf("a pass after the report wrote %q", w)
	}
	if _, ok := f.c.drift.pending(types.NamespacedName{Namespace: ns, Name: "shop"}, f.db("shop").UID, f.db("shop").Generation); ok {
		t.Error("the drift is still remembered after the stored status showed it")
	}
	if c := meta.FindStatusCondition(f.db("shop").Status.Conditions, pgv1.ConditionPrivilegesReady); c.Reason != pgv1.ReasonPrivilegesDriftReverted {
		t.Errorf("PrivilegesReady = %s after the report", c.Reason)
	}
}

// A database that declares neither schemas nor roles costs no SQL on a
// resync: no read, no statement.
func TestPlainDatabaseReadsNothingOnResync(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	converge(t, f, "shop")
	f.sql.held = &grantplan.Catalog{} // a read would plan every grant again
	execs := len(f.sql.execs)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.sql.execs) - execs; n != 0 {
		t.Errorf("a resync of a plain database ran %d transaction(s)", n)
	}
}
