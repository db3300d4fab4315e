package e2e_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// Each role's binding Secret is all a program needs: a libpq-style
// program given the projected binding (uri, and the CA file sslrootcert
// names) and a JDBC-style one given jdbc-url with username and password
// log in to real Postgres as the role, verifying the server. A rotation
// reaches the binding in the pass that rotates the password, and the
// binding logs in with the new one.
func TestBindingSecretLogsIn(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)

	for _, role := range []string{"admin", "rw", "ro"} {
		if kit.WaitBinding(t, ns, "app-orders-"+role+"-binding")["password"] != kit.Password(t, ns, "app-orders-"+role) {
			t.Errorf("%s: the binding's password is not the credential Secret's", role)
		}
		kit.BindingLogsIn(t, ns, "shop", "app-orders-"+role+"-binding")
	}

	annotatePostgres(t, ns, "PostgresDatabase", "app", map[string]string{pgv1.RotatePasswordsAnnotation: "r1"})
	waitRotated(t, ns, "app", "r1", 3)
	for _, role := range []string{"admin", "ro"} {
		if kit.WaitBinding(t, ns, "app-orders-"+role+"-binding")["password"] != kit.Password(t, ns, "app-orders-"+role) {
			t.Errorf("%s: the rotation is recorded but the binding keeps the old password", role)
		}
	}
	b := kit.WaitBinding(t, ns, "app-orders-rw-binding")
	if b["password"] != kit.Password(t, ns, "app-orders-rw") {
		t.Fatal("rw: the rotation is recorded but the binding keeps the old password")
	}
	dir := t.TempDir()
	if err := b.Project(dir); err != nil {
		t.Fatal(err)
	}
	kit.Eventually(t, 60*time.Second, "login through the rotated binding", func(context.Context) (bool, string, error) {
		cfg, err := b.URIConfig("uri", dir)
		if err != nil {
			return false, "", err
		}
		_, err = kit.LoginByBinding(t, ns, "shop", cfg)
		if err != nil && !testkit.PasswordRefused(err) {
			return false, "", err
		}
		return err == nil, "the new password not applied yet", nil
	})
}

// A database's statementTimeout reaches real Postgres as its default for
// every session opened after: a longer statement is cancelled (57014);
// changed and removed with the spec; and the class's default reaches a
// database that declares none.
func TestStatementTimeoutCancelsLongStatements(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", StatementTimeout: &metav1.Duration{Duration: 500 * time.Millisecond}})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	show := func() string {
		conn := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-rw")
		var v string
		if err := conn.QueryRow(t.Context(), "SHOW statement_timeout").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := show(); v != "500ms" {
		t.Fatalf("statement_timeout %q, want 500ms", v)
	}
	conn := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-rw")
	if _, err := conn.Exec(t.Context(), "SELECT pg_sleep(2)"); testkit.SQLState(err) != "57014" {
		t.Errorf("a 2 s statement under a 500 ms timeout: %v, want SQLSTATE 57014", err)
	}

	update := func(timeout *metav1.Duration) {
		t.Helper()
		db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "app", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		db.Spec.Databases[0].StatementTimeout = timeout
		if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	update(&metav1.Duration{Duration: 2 * time.Minute})
	kit.Until(t, 60*time.Second, "statement_timeout 2min", func(context.Context) (bool, error) { return show() == "2min", nil })
	update(nil)
	kit.Until(t, 60*time.Second, "statement_timeout reset to the server's 0", func(context.Context) (bool, error) { return show() == "0", nil })

	// The class's default reaches the database, which declares none, with
	// no change of the PostgresDatabase.
	class, err := pg.PostgresV1alpha1().PostgresClusterClasses().Get(t.Context(), "e2e-"+ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	class.Spec.DatabaseDefaults = &pgv1.DatabaseDefaults{StatementTimeout: &metav1.Duration{Duration: 3 * time.Second}}
	if _, err := pg.PostgresV1alpha1().PostgresClusterClasses().Update(t.Context(), class, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Until(t, 60*time.Second, "the class's statement_timeout 3s", func(context.Context) (bool, error) { return show() == "3s", nil })
}
