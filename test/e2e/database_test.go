package e2e_test

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// readyCluster starts an operator for ns and returns once a PostgresCluster
// "shop" is Ready there.
func readyCluster(t *testing.T, ns string) *operatorProc {
	t.Helper()
	op := startOperator(t, "op", "--leader-elect=false", "--namespace", ns,
		"--postgres-host-map", hostMap, "--resync-period", "2s")
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15)})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	return op
}

// connectAs connects with an application's credentials, read the way an
// application would: from the database's ConfigMap and Secret.
func connectAs(t *testing.T, ns, configMap, secret string) *pgx.Conn {
	t.Helper()
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), configMap, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ConfigMap %s: %v", configMap, err)
	}
	return dial(t, ns, "shop", cm.Data["database"], secret, cm.Data["ca-secret"])
}

func execSQL(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(t.Context(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func TestDatabaseBecomesReadyAndUsable(t *testing.T) {
	ns := kit.Namespace(t)
	op := readyCluster(t, ns)
	start := time.Now()
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", Extensions: []string{"pg_trgm"}})
	db := kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	t.Logf("PostgresDatabase Ready %v after creation on a Ready cluster", time.Since(start).Round(time.Millisecond))
	for _, c := range db.Status.Conditions {
		if c.Status != metav1.ConditionTrue {
			t.Errorf("condition %s=%s: %s", c.Type, c.Status, c.Message)
		}
	}

	// The admin creates a table; the rw role uses it through default privileges.
	admin := connectAs(t, ns, "app-orders-config", "app-orders-admin")
	execSQL(t, admin, "CREATE TABLE items (id bigserial PRIMARY KEY, name text)")
	rw := connectAs(t, ns, "app-orders-config", "app-orders-rw")
	execSQL(t, rw, "INSERT INTO items (name) VALUES ('widget')")
	var n int
	if err := rw.QueryRow(t.Context(), "SELECT count(*) FROM items").Scan(&n); err != nil || n != 1 {
		t.Fatalf("rw select: %d %v", n, err)
	}
	var ext string
	if err := admin.QueryRow(t.Context(), "SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'").Scan(&ext); err != nil {
		t.Errorf("extension pg_trgm missing: %v", err)
	}

	t.Run("zero writes and zero SQL on resync", func(t *testing.T) {
		if op.metric(t, "setpoint_pipeline_statements_total") == 0 {
			t.Fatal("the operator reports no SQL at all: the statement counter is broken")
		}
		expectIdle(t, op, "postgresdatabase")
	})
}

func TestRoleConflictFailsTheSecondClaimant(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "first", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "first", pgv1.PhaseReady, 120*time.Second)
	kit.CreateDatabase(t, ns, "second", "shop", pgv1.DatabaseSpec{Name: "orders"})
	second := kit.WaitDatabase(t, ns, "second", pgv1.PhaseFailed, 60*time.Second)
	var msg string
	for _, c := range second.Status.Conditions {
		if c.Type == pgv1.ConditionRolesReady {
			if c.Reason != "RoleConflict" {
				t.Errorf("RolesReady reason %s, want RoleConflict", c.Reason)
			}
			msg = c.Message
		}
	}
	if want := `DatabaseRole "shop.orders-admin" exists and was not created by setpoint for this object (controlled by PostgresDatabase "first"`; !strings.Contains(msg, want) {
		t.Errorf("second claimant's RolesReady message %q, want it to contain %q", msg, want)
	}
	// A third claimant is refused too.
	kit.CreateDatabase(t, ns, "third", "shop", pgv1.DatabaseSpec{Name: "orders"})
	third := kit.WaitDatabase(t, ns, "third", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, third.Status.Conditions, pgv1.ConditionRolesReady, "RoleConflict", `controlled by PostgresDatabase "first"`)
	// The API server decided: one DatabaseRole per role, the first's.
	for _, name := range []string{"shop.orders-admin", "shop.orders-rw"} {
		r, err := pg.CNPGV1().DatabaseRoles(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("DatabaseRole %s: %v", name, err)
		}
		if ref := metav1.GetControllerOf(r); ref == nil || ref.Name != "first" {
			t.Errorf("DatabaseRole %s controlled by %v, want PostgresDatabase first", name, ref)
		}
	}
	// The first keeps working.
	first := kit.WaitDatabase(t, ns, "first", pgv1.PhaseReady, 10*time.Second)
	if first.Status.Phase != pgv1.PhaseReady {
		t.Errorf("first claimant lost its database")
	}
	connectAs(t, ns, "first-orders-config", "first-orders-rw")
}

// A database on a Ready cluster reaches Ready with two status writes —
// waiting for its roles, Ready — however many passes it takes: waits that
// read the same to a user are worded the same, so a pass that only moves
// within them writes nothing, and moving on from one expected wait to the
// next (roles, then CloudNativePG applying the CNPG Database) is written
// only if it outlasts progressReportDelay (30 s; the stand-in applies
// within a second).
func TestDatabaseStatusWritesOnAReadyCluster(t *testing.T) {
	ns := kit.Namespace(t)
	op := readyCluster(t, ns)
	count := func() float64 {
		// Writes that took: a 409 from a cache a step behind is a retry
		// the API server refused, not a status written.
		return op.metric(t, "setpoint_api_requests_total", "verb", "update", "resource", "postgresdatabases/status", "code", "OK")
	}
	before := count()
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 60*time.Second)
	if n := count() - before; n > 2 || n == 0 {
		t.Errorf("%v status writes to reach Ready, want 1 or 2", n)
	}
}
