package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Extra roles on the stand-in with real Postgres: a login role migrator
// owns schema app and builds in it; a group analytics (no login) may read
// two of its tables, and the login role reporter reads them through
// inRoles; each may do what is declared and is refused the rest (by
// SQLSTATE). Removed from the spec, reporter is dropped and its Secret
// deleted.
func TestExtraRoles(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	connect := []pgv1.Grant{{Object: pgv1.GrantOnDatabase, Privileges: []pgv1.Privilege{"CONNECT"}}}
	roles := []pgv1.DatabaseRoleSpec{
		{Name: "migrator", Login: ptr.To(true), ConnectionLimit: ptr.To[int32](5), Grants: connect},
		{Name: "analytics", Grants: []pgv1.Grant{
			{Object: pgv1.GrantOnSchema, Schema: "app", Privileges: []pgv1.Privilege{"USAGE"}},
			{Object: pgv1.GrantOnTables, Schema: "app", Names: []string{"orders", "items"}, Privileges: []pgv1.Privilege{"SELECT"}},
		}},
		{Name: "reporter", Login: ptr.To(true), InRoles: []string{"analytics"}, Grants: connect},
	}
	kit.CreateDatabase(t, ns, "extra", "shop", pgv1.DatabaseSpec{Name: "shop",
		Schemas: []pgv1.SchemaSpec{{Name: "app", Owner: "migrator"}}, Roles: roles})
	kit.WaitDatabase(t, ns, "extra", pgv1.PhaseReady, 180*time.Second)
	waitPrivileges(t, ns, "extra", pgv1.ReasonPrivilegesIsolated)

	admin := connectAs(t, ns, "extra-shop-config", "extra-shop-admin")
	var login bool
	var limit int
	if err := admin.QueryRow(t.Context(), "SELECT rolcanlogin, rolconnlimit FROM pg_roles WHERE rolname = 'shop_migrator'").Scan(&login, &limit); err != nil || !login || limit != 5 {
		t.Errorf("shop_migrator: login %v, connection limit %d (%v); want login, 5", login, limit, err)
	}
	if err := admin.QueryRow(t.Context(), "SELECT rolcanlogin FROM pg_roles WHERE rolname = 'shop_analytics'").Scan(&login); err != nil || login {
		t.Errorf("shop_analytics: login %v (%v); want a group without login", login, err)
	}
	if _, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "extra-shop-analytics", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the group analytics got a Secret: %v", err)
	}

	// The connection ConfigMap names the login roles as it names the
	// fixed ones; the plugin's psql connects as one by its name.
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "extra-shop-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"migrator-user": "shop_migrator", "migrator-secret": "extra-shop-migrator",
		"reporter-user": "shop_reporter", "reporter-secret": "extra-shop-reporter", "analytics-user": "", "analytics-secret": ""} {
		if cm.Data[k] != want {
			t.Errorf("ConfigMap key %s = %q, want %q", k, cm.Data[k], want)
		}
	}
	out, err := plugin(t, ns, "psql", "extra", "--role", "migrator", "--", "-XAtc", "select current_user || ' ' || current_database()")
	if err != nil || strings.TrimSpace(out) != "shop_migrator shop" {
		t.Errorf("kubectl setpoint psql --role migrator printed %q (%v), want \"shop_migrator shop\"", out, err)
	}
	if out, err := plugin(t, ns, "conn", "extra", "--role", "analytics"); err == nil || !strings.Contains(out+err.Error(), "no such login role") {
		t.Errorf("conn --role analytics (a group): %q, %v; want refused", out, err)
	}

	// migrator owns app and builds in it.
	migrator := connectAs(t, ns, "extra-shop-config", "extra-shop-migrator")
	for _, stmt := range []string{
		"CREATE TABLE app.orders (id int PRIMARY KEY)", "CREATE TABLE app.items (id int PRIMARY KEY)",
		"CREATE TABLE app.payroll (id int PRIMARY KEY)", "INSERT INTO app.orders VALUES (1)",
	} {
		execSQL(t, migrator, stmt)
	}
	sqlAs(t, "migrator", migrator, "", "ALTER TABLE app.orders ADD COLUMN note text")
	sqlAs(t, "migrator", migrator, "42501", "CREATE TABLE public.x (id int)")

	// The tables exist now: a resync grants analytics SELECT on the two
	// it names, which reporter has through inRoles.
	reporter := connectAs(t, ns, "extra-shop-config", "extra-shop-reporter")
	waitAllowed(t, "reporter", reporter, "SELECT * FROM app.orders")
	sqlAs(t, "reporter", reporter, "", "SELECT * FROM app.items")
	sqlAs(t, "reporter", reporter, "42501", "SELECT * FROM app.payroll")
	sqlAs(t, "reporter", reporter, "42501", "INSERT INTO app.orders VALUES (2)")
	sqlAs(t, "reporter", reporter, "42501", "CREATE TABLE app.x (id int)")
	sqlAs(t, "reporter", reporter, "42501", "SET ROLE shop_migrator")
	rw := connectAs(t, ns, "extra-shop-config", "extra-shop-rw")
	sqlAs(t, "rw", rw, "42501", "SELECT * FROM app.orders") // no USAGE on app

	// reporter leaves the spec: its privileges are revoked, CNPG drops
	// it (deletionPolicy Delete), its Secret goes.
	db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "extra", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.Spec.Databases[0].Roles = roles[:2]
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Eventually(t, 120*time.Second, "role shop_reporter dropped, its Secret deleted", func(ctx context.Context) (bool, string, error) {
		var n int
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = 'shop_reporter'").Scan(&n); err != nil {
			return false, "", err
		}
		_, err := kube.CoreV1().Secrets(ns).Get(ctx, "extra-shop-reporter", metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return false, "", err
		}
		_, rerr := pg.CNPGV1().DatabaseRoles(ns).Get(ctx, "shop.shop-reporter", metav1.GetOptions{})
		if rerr != nil && !apierrors.IsNotFound(rerr) {
			return false, "", rerr
		}
		return n == 0 && apierrors.IsNotFound(err) && apierrors.IsNotFound(rerr),
			fmt.Sprintf("role count %d, Secret gone %v, DatabaseRole gone %v", n, apierrors.IsNotFound(err), apierrors.IsNotFound(rerr)), nil
	})
	kit.WaitDatabase(t, ns, "extra", pgv1.PhaseReady, 60*time.Second)
	got, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "extra", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got.Status.Databases[0].Roles {
		if r.Name == "shop_reporter" {
			t.Errorf("status still lists the dropped role: %+v", r)
		}
	}
	cm, err = kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "extra-shop-config", metav1.GetOptions{})
	if err != nil || cm.Data["reporter-user"] != "" || cm.Data["reporter-secret"] != "" || cm.Data["migrator-user"] != "shop_migrator" {
		t.Errorf("ConfigMap after reporter left: %v (%v), want reporter's keys gone, migrator's kept", cm.Data, err)
	}
	// What stays declared still holds.
	sqlAs(t, "migrator", migrator, "", "INSERT INTO app.items VALUES (1)")
}

// waitAllowed waits until who may run stmt (a grant a later pass makes),
// each try in a transaction rolled back.
func waitAllowed(t *testing.T, who string, conn *pgx.Conn, stmt string) {
	t.Helper()
	kit.Eventually(t, 60*time.Second, who+" may "+stmt, func(context.Context) (bool, string, error) {
		code := sqlStateOf(t, conn, stmt)
		return code == "", "SQLSTATE " + code, nil
	})
}
