package realcnpg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/test/cnpgsim"
)

// fitInstances runs the node's PostgreSQL image on a static local PV,
// checkpoints kept short so that a replica joins quickly.
func fitInstances(s *pgv1.ClusterSettings) {
	size := resource.MustParse("1Gi")
	s.ImageName = setup.Images.Ref("postgresql")
	s.Storage = &pgv1.StorageSpec{Size: &size, StorageClass: ptr.To("local")}
	s.PostgreSQLConfig = map[string]string{
		"shared_buffers": "32MB", "checkpoint_timeout": "30s", "checkpoint_completion_target": "0.1",
	}
}

// smallClass is a class for this node: one instance of the local
// PostgreSQL image on a static local PV, checkpoints kept short so that a
// replica joins quickly.
func smallClass(t *testing.T, name string, tune ...func(*pgv1.ClusterSettings)) {
	t.Helper()
	class := &pgv1.PostgresClusterClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: pgv1.PostgresClusterClassSpec{ClusterSettings: pgv1.ClusterSettings{
			Instances:       ptr.To[int32](1),
			PostgresVersion: ptr.To[int32](15),
		}},
	}
	fitInstances(&class.Spec.ClusterSettings)
	for _, f := range tune {
		f(&class.Spec.ClusterSettings)
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusterClasses().Create(t.Context(), class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = pg.PostgresV1alpha1().PostgresClusterClasses().Delete(context.WithoutCancel(t.Context()), name, metav1.DeleteOptions{})
	})
}

// The whole first flow on real CloudNativePG: a PostgresCluster becomes a
// healthy CNPG Cluster, a PostgresDatabase becomes CNPG Databases and
// DatabaseRoles that CNPG's instance manager applies, and the
// application's credentials work with the privileges setpoint granted —
// the admin creates a table, the rw role writes to it and cannot create a
// database, the ro role reads and cannot write; deleting the object drops
// the Delete database and its roles and keeps the Retain one. The class
// turns monitoring.service on: its Service's endpoints are the instance
// pods, and each serves CNPG's exporter (metrics_service_test.go).
func TestDatabaseBecomesReadyOnRealCNPG(t *testing.T) {
	ns := kit.Namespace(t)
	smallClass(t, "small-"+ns, func(s *pgv1.ClusterSettings) {
		s.Monitoring = &pgv1.MonitoringSpec{Service: ptr.To(true)}
	})
	phases := watchPhases(t, ns, "shop")
	createCluster(t, ns, "shop", "small-"+ns)
	start := time.Now()
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	t.Logf("PostgresCluster Ready in %s", time.Since(start).Round(time.Second))
	seen, _ := phases.seen()
	knownPhases(t, seen)
	// The stand-in shows a new Cluster as "Setting up primary", then
	// healthy: real CNPG must show both, in that order.
	if i := slices.Index(seen, cnpgsim.PhaseSettingUpPrimary); i < 0 || !slices.Contains(seen[i:], cnpgsim.PhaseHealthy) {
		t.Errorf("real CNPG's phases from creation to Ready = %q; the stand-in models %q then %q", seen, cnpgsim.PhaseSettingUpPrimary, cnpgsim.PhaseHealthy)
	}
	t.Logf("real CNPG's phases from creation to Ready: %q", seen)
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Status.Phase != cnpgsim.PhaseHealthy {
		t.Fatalf("CNPG Cluster phase %q while the PostgresCluster is Ready", cl.Status.Phase)
	}
	monitorPreparedAhead(t, cl)
	t.Run("the metrics Service reaches every instance", func(t *testing.T) { metricsServiceScrapes(t, ns, "shop") })

	kit.CreateDatabase(t, ns, "app", "shop",
		pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true},
		pgv1.DatabaseSpec{Name: "catalog", DeletionPolicy: pgv1.DeletionPolicyRetain})
	start = time.Now()
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)
	t.Logf("PostgresDatabase Ready in %s", time.Since(start).Round(time.Second))
	d, err := pg.CNPGV1().Databases(ns).Get(t.Context(), "app-orders", metav1.GetOptions{})
	if err != nil || d.Status.Applied == nil || !*d.Status.Applied {
		t.Fatalf("CNPG Database app-orders not applied by CNPG: %+v (%v)", d.Status, err)
	}
	for _, name := range []string{"shop.orders-admin", "shop.orders-rw", "shop.orders-ro", "shop.catalog-admin", "shop.catalog-rw"} {
		r, err := pg.CNPGV1().DatabaseRoles(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil || r.Status.Applied == nil || !*r.Status.Applied || r.Status.ObservedGeneration != r.Generation {
			t.Fatalf("DatabaseRole %s not applied by CNPG at its generation: %+v (%v)", name, r.Status, err)
		}
		if !slices.Contains(r.Finalizers, "cnpg.io/deleteRole") {
			t.Errorf("DatabaseRole %s has finalizers %v; the stand-in models CNPG's cnpg.io/deleteRole", name, r.Finalizers)
		}
	}

	admin := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	if _, err := admin.Exec(t.Context(), "CREATE TABLE items (id bigserial PRIMARY KEY, name text)"); err != nil {
		t.Fatalf("admin creates a table: %v", err)
	}
	rw := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-rw")
	if _, err := rw.Exec(t.Context(), "INSERT INTO items (name) VALUES ('first')"); err != nil {
		t.Fatalf("rw writes: %v", err)
	}
	var n int
	if err := admin.QueryRow(t.Context(), "SELECT count(*) FROM items").Scan(&n); err != nil || n != 1 {
		t.Fatalf("admin reads %d rows (%v), want 1", n, err)
	}
	var pgErr *pgconn.PgError
	if _, err := rw.Exec(t.Context(), "CREATE DATABASE stolen"); !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Errorf("rw CREATE DATABASE: %v, want insufficient_privilege", err)
	}
	ro := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-ro")
	if err := ro.QueryRow(t.Context(), "SELECT count(*) FROM items").Scan(&n); err != nil || n != 1 {
		t.Errorf("ro reads %d rows (%v), want 1", n, err)
	}
	if _, err := ro.Exec(t.Context(), "INSERT INTO items (name) VALUES ('no')"); !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Errorf("ro INSERT: %v, want insufficient_privilege", err)
	}
	// The Service Binding Secret alone logs in, on real CNPG's server
	// certificate (issue 48).
	t.Run("the rw binding logs in", func(t *testing.T) { kit.BindingLogsIn(t, ns, "shop", "app-orders-rw-binding") })
	t.Run("tenants apart", func(t *testing.T) { tenantsApart(t, ns) })
	t.Run("role privileges taken back", func(t *testing.T) { privilegesTakenBack(t, ns) })
	t.Run("a hand-deleted DatabaseRole comes back", func(t *testing.T) { kit.DeletedRoleComesBack(t, ns, 2*time.Minute) })

	// Deleting the object runs each database's policy in Postgres: orders
	// (Delete) and its roles are dropped, catalog (Retain) is kept.
	for _, c := range []interface{ Close(context.Context) error }{admin, rw, ro} {
		_ = c.Close(t.Context())
	}
	if err := pg.PostgresV1alpha1().PostgresDatabases(ns).Delete(t.Context(), "app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Eventually(t, 3*time.Minute, "PostgresDatabase app gone", func(ctx context.Context) (bool, string, error) {
		_, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "app", metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err), nil
	})
	su := kit.ConnectAs(t, ns, "shop", "postgres", "shop-monitor") // setpoint_monitor: superuser access is off, as CNPG has it by default
	has := func(sql, name string) bool { return exists(t, su, sql, name) }
	for _, r := range []string{"orders_admin", "orders_rw", "orders_ro"} {
		if has(roleSQL, r) {
			t.Errorf("role %s left after a Delete", r)
		}
	}
	if has(dbSQL, "orders") {
		t.Error("database orders left after a Delete")
	}
	if !has(dbSQL, "catalog") || !has(roleSQL, "catalog_admin") {
		t.Error("Retain lost the catalog database or its admin role")
	}
	// The kept role is still marked for app: a new PostgresDatabase app
	// (or one adopting from it) may manage it again.
	var comment string
	if err := su.QueryRow(t.Context(), "SELECT coalesce(shobj_description(oid, 'pg_authid'), '') FROM pg_roles WHERE rolname = 'catalog_admin'").Scan(&comment); err != nil {
		t.Fatal(err)
	}
	if want := "managed by setpoint for PostgresDatabase " + ns + "/app"; comment != want {
		t.Errorf("kept role catalog_admin has comment %q, want %q", comment, want)
	}
	t.Run("a new database is Ready in seconds", func(t *testing.T) { newDatabasesReadyInSeconds(t, ns, "shop") })
	t.Run("twenty at once", func(t *testing.T) { twentyAtOnceOnRealCNPG(t, ns, "shop") })
}

func createCluster(t *testing.T, ns, name, class string) {
	t.Helper()
	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       pgv1.PostgresClusterSpec{Class: class},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// monitorPreparedAhead: the monitor's DatabaseRole was created while CNPG
// brought the Cluster up, not after it was healthy, and real CNPG applied
// it (retried by setpoint if its instance manager tried before Postgres
// accepted connections).
func monitorPreparedAhead(t *testing.T, cl *cnpgv1.Cluster) {
	t.Helper()
	mon, err := pg.CNPGV1().DatabaseRoles(cl.Namespace).Get(t.Context(), naming.MonitorRoleObject(cl.Name), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mon.Status.Applied == nil || !*mon.Status.Applied || mon.Status.Message != "" {
		t.Errorf("monitor DatabaseRole status %+v, want applied", mon.Status)
	}
	healthy := apimeta.FindStatusCondition(cl.Status.Conditions, cnpgv1.ConditionClusterReady)
	if healthy == nil || healthy.Status != metav1.ConditionTrue {
		t.Fatalf("CNPG Cluster's Ready condition %+v", healthy)
	}
	if mon.CreationTimestamp.After(healthy.LastTransitionTime.Time) {
		t.Errorf("monitor DatabaseRole created at %s, after the CNPG Cluster was healthy (%s): not prepared ahead",
			mon.CreationTimestamp, healthy.LastTransitionTime)
	}
	t.Logf("monitor DatabaseRole created %s, CNPG Cluster healthy %s, setpoint's retry mark %q",
		mon.CreationTimestamp, healthy.LastTransitionTime, mon.Annotations[cnpgverdict.RetryAnnotation])
}
