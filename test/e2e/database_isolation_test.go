package e2e_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// Two PostgresDatabases on one cluster: the roles of one cannot connect to
// the other's database, and PUBLIC holds nothing there; the database's own
// roles work as before (the admin creates, rw writes and makes a temporary
// table, ro reads).
func TestTenantsOnOneClusterStayApart(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "teama", "shop", pgv1.DatabaseSpec{Name: "teama", ReadOnlyRole: true})
	kit.CreateDatabase(t, ns, "teamb", "shop", pgv1.DatabaseSpec{Name: "teamb"})
	for _, name := range []string{"teama", "teamb"} {
		db := kit.WaitDatabase(t, ns, name, pgv1.PhaseReady, 120*time.Second)
		if c := meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionPrivilegesReady); c == nil || c.Reason != pgv1.ReasonPrivilegesIsolated {
			t.Errorf("%s PrivilegesReady = %+v", name, c)
		}
	}
	kit.DeniedEntry(t, ns, "shop", "teama", "teamb_rw", kit.Password(t, ns, "teamb-teamb-rw"))
	kit.DeniedEntry(t, ns, "shop", "teama", "teamb_admin", kit.Password(t, ns, "teamb-teamb-admin"))
	kit.DeniedEntry(t, ns, "shop", "teamb", "teama_ro", kit.Password(t, ns, "teama-teama-ro"))

	admin := connectAs(t, ns, "teama-teama-config", "teama-teama-admin")
	execSQL(t, admin, "CREATE TABLE items (id int PRIMARY KEY)")
	rw := connectAs(t, ns, "teama-teama-config", "teama-teama-rw")
	execSQL(t, rw, "INSERT INTO items VALUES (1)")
	execSQL(t, rw, "CREATE TEMP TABLE scratch (id int)")
	ro := connectAs(t, ns, "teama-teama-config", "teama-teama-ro")
	var n int
	if err := ro.QueryRow(t.Context(), "SELECT count(*) FROM items").Scan(&n); err != nil || n != 1 {
		t.Errorf("teama_ro reads %d rows: %v", n, err)
	}
	if _, err := rw.Exec(t.Context(), "CREATE TABLE planted (id int)"); testkit.SQLState(err) != "42501" {
		t.Errorf("teama_rw creating in schema public: %v, want 42501", err)
	}
	var open bool
	err := admin.QueryRow(t.Context(), `SELECT has_database_privilege('public', 'teama', 'CONNECT')
		OR has_database_privilege('public', 'teama', 'TEMPORARY')
		OR has_schema_privilege('public', 'public', 'CREATE')
		OR has_schema_privilege('teamb_admin', 'public', 'CREATE')
		OR has_database_privilege('setpoint_monitor', 'teama', 'CONNECT')`).Scan(&open)
	if err != nil || open {
		t.Errorf("PUBLIC, teamb_admin or the monitor holds a right on teama: %v %v", open, err)
	}
}

// lastOpenRelease is the last commit whose setpoint left PUBLIC's rights
// on the databases it made.
const lastOpenRelease = "3c81cf9"

// An upgrade from the setpoint that left every database open to the
// cluster's other roles closes the existing databases, with no failed
// login or write for their own roles: an application writes over a new
// connection each time from before the old operator stops until after the
// new one is done.
func TestUpgradeClosesExistingDatabases(t *testing.T) {
	prev := runPrevious(t, lastOpenRelease)
	ns := prev.ns
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.CreateDatabase(t, ns, "other", "shop", pgv1.DatabaseSpec{Name: "teamb"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	kit.WaitDatabase(t, ns, "other", pgv1.PhaseReady, 120*time.Second)
	intruder := kit.Password(t, ns, "other-teamb-rw")
	if _, err := kit.Login(t, ns, "shop", "orders", "teamb_rw", intruder); err != nil {
		t.Fatalf("the previous setpoint already closed orders to teamb_rw (%v): this test proves nothing", err)
	}
	execSQL(t, connectAs(t, ns, "app-orders-config", "app-orders-admin"),
		"CREATE TABLE writes (at timestamptz DEFAULT now()); GRANT INSERT, SELECT ON writes TO orders_rw")

	app := startWriter(t, ns, kit.Password(t, ns, "app-orders-rw"))
	app.await(t, 5) // the application runs against the previous setpoint
	phases := watchDatabasePhase(t, ns, "app")
	prev.upgrade(t)

	kit.Until(t, 120*time.Second, "the existing databases closed", func(ctx context.Context) (bool, error) {
		for _, name := range []string{"app", "other"} {
			db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if c := meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionPrivilegesReady); c == nil || c.Reason != pgv1.ReasonPrivilegesIsolated {
				return false, nil
			}
		}
		return true, nil
	})
	kit.DeniedEntry(t, ns, "shop", "orders", "teamb_rw", intruder)
	kit.DeniedEntry(t, ns, "shop", "teamb", "orders_rw", kit.Password(t, ns, "app-orders-rw"))
	app.await(t, app.OK()+5) // and goes on after it
	app.Stop()
	if n, seen := phases.count(); n != 0 {
		t.Errorf("PostgresDatabase app changed phase %d time(s) across the upgrade, want it Ready throughout: %q", n, seen)
	}
	if n := app.Failed(); n > 0 {
		t.Errorf("%d of %d logins and writes failed across the upgrade; last error: %v", n, n+app.OK(), app.LastErr())
	}
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 60*time.Second)
}

// watchDatabasePhase counts the phase changes of a PostgresDatabase from
// now on.
func watchDatabasePhase(t *testing.T, ns, name string) *statusChanges {
	t.Helper()
	w, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Watch(context.WithoutCancel(t.Context()),
		metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatalf("watch PostgresDatabase %s: %v", name, err)
	}
	return watchStatus(t, w, func(d *pgv1.PostgresDatabase) any { return d.Status.Phase },
		func(d *pgv1.PostgresDatabase) string { return string(d.Status.Phase) })
}
