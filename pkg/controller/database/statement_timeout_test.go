package database

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The plan sets whole milliseconds, does nothing when the database
// already has the value, and resets a value the spec does not declare.
func TestStatementTimeoutPlan(t *testing.T) {
	t.Parallel()
	d := pgv1.DatabaseSpec{Name: "orders", StatementTimeout: &metav1.Duration{Duration: 1500 * time.Millisecond}}
	cases := []struct {
		name string
		d    pgv1.DatabaseSpec
		have string
		set  bool
		want []string
	}{
		{"new", d, "", false, []string{`ALTER DATABASE "orders" SET statement_timeout = 1500`}},
		{"other value", d, "30000", true, []string{`ALTER DATABASE "orders" SET statement_timeout = 1500`}},
		{"the value", d, "1500", true, nil},
		{"unset, none", pgv1.DatabaseSpec{Name: "orders"}, "", false, nil},
		{"unset, one set by hand", pgv1.DatabaseSpec{Name: "orders"}, "5000", true, []string{`ALTER DATABASE "orders" RESET statement_timeout`}},
	}
	for _, c := range cases {
		if got := statementTimeoutPlan(c.d.Name, c.d.StatementTimeout, c.have, c.set); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A database's statementTimeout is set as its owner once per generation,
// said in PrivilegesReady's message, changed and reset with the spec; a
// converged pass runs no SQL for it.
func TestStatementTimeoutFollowsTheSpec(t *testing.T) {
	t.Parallel()
	spec := pgv1.DatabaseSpec{Name: "orders", StatementTimeout: &metav1.Duration{Duration: 1500 * time.Millisecond}}
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", spec)})
	converge(t, f, "shop")
	if got := f.sql.settings["orders/statement_timeout"]; got != "1500" {
		t.Fatalf("statement_timeout = %q, want 1500", got)
	}
	var asOwner bool
	for _, e := range f.sql.execs {
		if slices.ContainsFunc(e.stmts, func(s string) bool { return strings.Contains(s, "statement_timeout") }) {
			asOwner = e.target.User == "orders_admin"
		}
	}
	if !asOwner {
		t.Error("statement_timeout not set as the database's owner")
	}
	if c := cond(t, f.db("shop"), pgv1.ConditionPrivilegesReady); !strings.Contains(c.Message, "default statement_timeout: orders 1.5s") {
		t.Errorf("PrivilegesReady = %q", c.Message)
	}
	execs := len(f.sql.execs)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if len(f.sql.execs) != execs {
		t.Errorf("a converged pass ran SQL: %v", f.sql.execs[execs:])
	}

	update := func(mutate func(*pgv1.DatabaseSpec)) {
		t.Helper()
		db := f.db("shop")
		mutate(&db.Spec.Databases[0])
		db.Generation++
		if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.syncReported("shop"); err != nil {
			t.Fatal(err)
		}
	}
	update(func(d *pgv1.DatabaseSpec) { d.StatementTimeout = &metav1.Duration{} })
	if got := f.sql.settings["orders/statement_timeout"]; got != "0" {
		t.Errorf("after 0s: %q, want 0", got)
	}
	update(func(d *pgv1.DatabaseSpec) { d.StatementTimeout = nil })
	if got, set := f.sql.settings["orders/statement_timeout"]; set {
		t.Errorf("after the field's removal: %q, want reset", got)
	}
}

// A database without its own statementTimeout takes its cluster's
// databaseDefaults, which are its class's unless the cluster sets one (the
// settings' merge rule); its own overrides both. A class's change reaches
// the databases with no change of theirs.
func TestStatementTimeoutDefaultsFromTheClass(t *testing.T) {
	t.Parallel()
	class := &pgv1.PostgresClusterClass{ObjectMeta: metav1.ObjectMeta{Name: "standard"},
		Spec: pgv1.PostgresClusterClassSpec{ClusterSettings: pgv1.ClusterSettings{
			DatabaseDefaults: &pgv1.DatabaseDefaults{StatementTimeout: &metav1.Duration{Duration: 2 * time.Second}}}}}
	pc := readyCluster()
	pc.Spec.Class = "standard"
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"},
		pgv1.DatabaseSpec{Name: "reports", StatementTimeout: &metav1.Duration{Duration: 10 * time.Minute}})
	f := newFixture(t, clusterSecrets(), []runtime.Object{class, pc, db})
	converge(t, f, "shop")
	if a, b := f.sql.settings["orders/statement_timeout"], f.sql.settings["reports/statement_timeout"]; a != "2000" || b != "600000" {
		t.Fatalf("statement_timeout orders %q reports %q, want the class's 2000 and its own 600000", a, b)
	}

	// The cluster's own default replaces the class's.
	cur, err := f.pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "pg", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Spec.DatabaseDefaults = &pgv1.DatabaseDefaults{StatementTimeout: &metav1.Duration{Duration: 5 * time.Second}}
	if _, err := f.pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
	if a := f.sql.settings["orders/statement_timeout"]; a != "5000" {
		t.Errorf("after the cluster's default: orders %q, want 5000", a)
	}

	// Both withdrawn: the class's and the cluster's defaults gone, the
	// database's setting is reset; the one declared by the database stays.
	cur, _ = f.pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "pg", metav1.GetOptions{})
	cur.Spec.DatabaseDefaults = nil
	if _, err := f.pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	class.Spec.DatabaseDefaults = nil
	if _, err := f.pg.PostgresV1alpha1().PostgresClusterClasses().Update(t.Context(), class, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
	if a, set := f.sql.settings["orders/statement_timeout"]; set {
		t.Errorf("with no default left: orders %q, want reset", a)
	}
	if b := f.sql.settings["reports/statement_timeout"]; b != "600000" {
		t.Errorf("reports %q, want its own 600000", b)
	}
}
