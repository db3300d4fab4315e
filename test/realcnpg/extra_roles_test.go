package realcnpg

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Extra roles on real CloudNativePG: each is a DatabaseRole CNPG applies;
// the login role migrator logs in with the password of its Secret and
// builds in the schema it owns; reporter, a login role, reads what the
// group reporting may read through inRoles and is refused the rest by
// SQLSTATE. Removed from the spec, reporter is dropped by CNPG and its
// Secret deleted.
func TestExtraRolesOnRealCNPG(t *testing.T) {
	ns := kit.Namespace(t)
	class := "extra-" + ns
	smallClass(t, class)
	createCluster(t, ns, "shop", class)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 8*time.Minute)
	connect := []pgv1.Grant{{Object: pgv1.GrantOnDatabase, Privileges: []pgv1.Privilege{"CONNECT"}}}
	roles := []pgv1.DatabaseRoleSpec{
		{Name: "migrator", Login: ptr.To(true), ConnectionLimit: ptr.To[int32](3), Grants: connect},
		{Name: "reporting", Grants: []pgv1.Grant{
			{Object: pgv1.GrantOnSchema, Schema: "app", Privileges: []pgv1.Privilege{"USAGE"}},
			{Object: pgv1.GrantOnTables, Schema: "app", Privileges: []pgv1.Privilege{"SELECT"}},
		}},
		{Name: "reporter", Login: ptr.To(true), InRoles: []string{"reporting"}, Grants: connect},
	}
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders",
		Schemas: []pgv1.SchemaSpec{{Name: "app", Owner: "migrator"}}, Roles: roles})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 4*time.Minute)

	// migrator logs in through its DatabaseRole's password and builds in
	// app; what it creates is readable by reporting at once (default
	// privileges of the schema's owner).
	migrator := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-migrator")
	defer func() { _ = migrator.Close(context.WithoutCancel(t.Context())) }()
	for _, ddl := range []string{"CREATE TABLE app.orders (id int PRIMARY KEY)", "INSERT INTO app.orders VALUES (1)"} {
		if _, err := migrator.Exec(t.Context(), ddl); err != nil {
			t.Fatalf("migrator: %s: %v", ddl, err)
		}
	}
	var login bool
	var limit int
	if err := migrator.QueryRow(t.Context(), "SELECT rolcanlogin, rolconnlimit FROM pg_roles WHERE rolname = 'orders_reporting'").Scan(&login, &limit); err != nil || login || limit != -1 {
		t.Errorf("orders_reporting: login %v, limit %d (%v); want a group without login", login, limit, err)
	}
	reporter := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-reporter")
	defer func() { _ = reporter.Close(context.WithoutCancel(t.Context())) }()
	for _, c := range []struct{ code, stmt string }{
		{"", "SELECT * FROM app.orders"},
		{"42501", "INSERT INTO app.orders VALUES (2)"},
		{"42501", "CREATE TABLE app.x (id int)"},
		{"42501", "SET ROLE orders_migrator"},
	} {
		if got := pooledState(t, reporter, c.stmt); got != c.code {
			t.Errorf("as reporter: %s: SQLSTATE %q, want %q", c.stmt, got, c.code)
		}
	}

	// reporter leaves the spec: dropped by CNPG, its Secret deleted.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "app", metav1.GetOptions{})
		if err != nil {
			return err
		}
		db.Spec.Databases[0].Roles = roles[:2]
		_, err = pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)
	if exists(t, migrator, roleSQL, "orders_reporter") {
		t.Error("role orders_reporter still in Postgres after it left the spec (policy Delete)")
	}
	if _, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "app-orders-reporter", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Secret app-orders-reporter after the role left the spec: %v", err)
	}
	if _, err := pg.CNPGV1().DatabaseRoles(ns).Get(t.Context(), "shop.orders-reporter", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("DatabaseRole shop.orders-reporter after the role left the spec: %v", err)
	}
}
