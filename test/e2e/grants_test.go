package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// sqlAs runs stmt as conn in a transaction it rolls back, and wants
// SQLSTATE code ("" for success).
func sqlAs(t *testing.T, who string, conn *pgx.Conn, code, stmt string) {
	t.Helper()
	if got := sqlStateOf(t, conn, stmt); got != code {
		t.Errorf("as %s: %s: SQLSTATE %q, want %q", who, stmt, got, code)
	}
}

func sqlStateOf(t *testing.T, conn *pgx.Conn, stmt string) string {
	t.Helper()
	tx, err := conn.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.WithoutCancel(t.Context()))
	_, err = tx.Exec(t.Context(), stmt)
	if err != nil && testkit.SQLState(err) == "" {
		t.Fatalf("%s: %v", stmt, err)
	}
	return testkit.SQLState(err)
}

// waitPrivileges waits until the PrivilegesReady condition has reason at
// the database's generation.
func waitPrivileges(t *testing.T, ns, name, reason string) *metav1.Condition {
	t.Helper()
	var got *metav1.Condition
	kit.Eventually(t, 60*time.Second, "PrivilegesReady "+reason, func(ctx context.Context) (bool, string, error) {
		db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		got = meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionPrivilegesReady)
		return got != nil && got.Reason == reason && got.ObservedGeneration == db.Generation, fmt.Sprintf("%+v", got), nil
	})
	return got
}

// Declared schemas and the fixed roles' grants on them, on the stand-in
// with real Postgres: each role may run what it is declared to and is
// refused the rest (by SQLSTATE); a privilege granted by hand is revoked
// and reported; a grant removed from the spec is revoked.
func TestDeclaredSchemasAndGrants(t *testing.T) {
	ns := kit.Namespace(t)
	op := readyCluster(t, ns)
	billingRW := []pgv1.Privilege{"SELECT", "INSERT"}
	spec := func() pgv1.DatabaseSpec {
		return pgv1.DatabaseSpec{Name: "shop", ReadOnlyRole: true,
			Schemas: []pgv1.SchemaSpec{{Name: "billing"}, {Name: "catalog"}},
			Roles: []pgv1.DatabaseRoleSpec{{Name: "rw", Grants: []pgv1.Grant{
				{Object: pgv1.GrantOnSchema, Schema: "billing", Privileges: []pgv1.Privilege{"USAGE"}},
				{Object: pgv1.GrantOnTables, Schema: "billing", Privileges: billingRW},
				{Object: pgv1.GrantOnSequences, Schema: "billing", Privileges: []pgv1.Privilege{"USAGE", "SELECT"}},
			}}}}
	}
	kit.CreateDatabase(t, ns, "grants", "shop", spec())
	kit.WaitDatabase(t, ns, "grants", pgv1.PhaseReady, 120*time.Second)
	c := waitPrivileges(t, ns, "grants", pgv1.ReasonPrivilegesIsolated)
	if !strings.Contains(c.Message, "the last apply ran") {
		t.Errorf("PrivilegesReady message %q does not count the statements", c.Message)
	}

	admin := connectAs(t, ns, "grants-shop-config", "grants-shop-admin")
	rw := connectAs(t, ns, "grants-shop-config", "grants-shop-rw")
	ro := connectAs(t, ns, "grants-shop-config", "grants-shop-ro")
	// The schemas exist, owned by the admin, which builds in them; the
	// default privileges reach what it creates.
	execSQL(t, admin, "CREATE TABLE billing.invoices (id bigserial PRIMARY KEY, total int)")
	execSQL(t, admin, "CREATE TABLE catalog.items (id int PRIMARY KEY)")
	execSQL(t, admin, "INSERT INTO catalog.items VALUES (1)")

	sqlAs(t, "rw", rw, "", "INSERT INTO billing.invoices (total) VALUES (10)")
	sqlAs(t, "rw", rw, "", "SELECT * FROM billing.invoices")
	sqlAs(t, "rw", rw, "42501", "UPDATE billing.invoices SET total = 0")
	sqlAs(t, "rw", rw, "42501", "DELETE FROM billing.invoices")
	sqlAs(t, "rw", rw, "42501", "CREATE TABLE billing.x (id int)")
	sqlAs(t, "rw", rw, "42501", "SELECT * FROM catalog.items") // no USAGE on catalog
	sqlAs(t, "ro", ro, "", "SELECT * FROM billing.invoices")
	sqlAs(t, "ro", ro, "", "SELECT * FROM catalog.items")
	sqlAs(t, "ro", ro, "42501", "INSERT INTO catalog.items VALUES (2)")
	sqlAs(t, "ro", ro, "42501", "CREATE TABLE catalog.y (id int)")

	// Converged, a resync reads what the roles hold and runs nothing: at
	// most one statement (the read) per pass.
	settle(t, op)
	sql, passes := op.metric(t, "setpoint_pipeline_statements_total"), op.metric(t, "setpoint_reconcile_total", "name", "postgresdatabase")
	// Wait for two resync passes, seen in the pass counter.
	var dpasses float64
	kit.Eventually(t, time.Minute, "two converged resync passes", func(context.Context) (bool, string, error) {
		dpasses = op.metric(t, "setpoint_reconcile_total", "name", "postgresdatabase") - passes
		return dpasses >= 2, fmt.Sprintf("%v passes", dpasses), nil
	})
	dsql := op.metric(t, "setpoint_pipeline_statements_total") - sql
	dpasses = op.metric(t, "setpoint_reconcile_total", "name", "postgresdatabase") - passes
	if dpasses == 0 || dsql > dpasses {
		t.Errorf("converged resyncs: %v statements in %v passes, want at most one (the read) per pass", dsql, dpasses)
	}
	t.Logf("converged resyncs: %v statements in %v passes", dsql, dpasses)

	// A privilege granted by hand is revoked and reported.
	execSQL(t, admin, "GRANT UPDATE, TRUNCATE ON billing.invoices TO shop_rw")
	drift := waitPrivileges(t, ns, "grants", pgv1.ReasonPrivilegesDriftReverted)
	if !strings.Contains(drift.Message, `UPDATE ON TABLE "billing"."invoices" FROM "shop_rw"`) {
		t.Errorf("drift message %q does not name the revoked grant", drift.Message)
	}
	sqlAs(t, "rw", rw, "42501", "UPDATE billing.invoices SET total = 0")
	sqlAs(t, "rw", rw, "42501", "TRUNCATE billing.invoices")
	sqlAs(t, "rw", rw, "", "INSERT INTO billing.invoices (total) VALUES (11)")
	events, err := kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=grants"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range events.Items {
		found = found || e.Reason == pgv1.EventPrivilegesDriftReverted && e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, "TRUNCATE")
	}
	if !found {
		t.Errorf("no Warning Event %s", pgv1.EventPrivilegesDriftReverted)
	}

	// A grant removed from the spec is revoked.
	db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "grants", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.Spec.Databases[0].Roles[0].Grants[1].Privileges = []pgv1.Privilege{"SELECT"}
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPrivileges(t, ns, "grants", pgv1.ReasonPrivilegesIsolated)
	sqlAs(t, "rw", rw, "42501", "INSERT INTO billing.invoices (total) VALUES (12)")
	sqlAs(t, "rw", rw, "", "SELECT * FROM billing.invoices")
	execSQL(t, admin, "CREATE TABLE billing.later (id int)")
	sqlAs(t, "rw", rw, "42501", "INSERT INTO billing.later VALUES (1)")
	sqlAs(t, "rw", rw, "", "SELECT * FROM billing.later")
	sqlAs(t, "ro", ro, "", "SELECT * FROM billing.later")

	// A schema removed from the spec stays, with its data, and is
	// reported; what it granted is revoked.
	db, err = pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "grants", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.Spec.Databases[0].Schemas = db.Spec.Databases[0].Schemas[:1] // catalog removed
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kept := waitPrivileges(t, ns, "grants", pgv1.ReasonPrivilegesIsolated)
	if !strings.Contains(kept.Message, "schemas not declared, kept with their data: shop.catalog") {
		t.Errorf("PrivilegesReady message %q does not report the kept schema", kept.Message)
	}
	var n int
	if err := admin.QueryRow(t.Context(), "SELECT count(*) FROM catalog.items").Scan(&n); err != nil || n != 1 {
		t.Errorf("admin reads %d rows of the kept schema's table (%v), want 1", n, err)
	}
	sqlAs(t, "ro", ro, "42501", "SELECT * FROM catalog.items")
}
