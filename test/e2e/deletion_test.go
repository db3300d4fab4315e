package e2e_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// roleExists asks Postgres itself, as the superuser.
func roleExists(t *testing.T, ns, role string) bool {
	t.Helper()
	var n int
	if err := connectSuperuser(t, ns, "shop").QueryRow(t.Context(), "SELECT count(*) FROM pg_roles WHERE rolname = $1", role).Scan(&n); err != nil {
		t.Fatalf("query pg_roles: %v", err)
	}
	return n == 1
}

func databaseExists(t *testing.T, ns, db string) bool {
	t.Helper()
	var n int
	if err := connectSuperuser(t, ns, "shop").QueryRow(t.Context(), "SELECT count(*) FROM pg_database WHERE datname = $1", db).Scan(&n); err != nil {
		t.Fatalf("query pg_database: %v", err)
	}
	return n == 1
}

func TestDatabaseDeletionPolicies(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "app", "shop",
		pgv1.DatabaseSpec{Name: "orders", DeletionPolicy: pgv1.DeletionPolicyDelete},
		pgv1.DatabaseSpec{Name: "catalog", DeletionPolicy: pgv1.DeletionPolicyRetain})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	for _, r := range []string{"orders_admin", "orders_rw", "catalog_admin", "catalog_rw"} {
		if !roleExists(t, ns, r) {
			t.Fatalf("role %s missing before deletion", r)
		}
	}
	if err := pg.PostgresV1alpha1().PostgresDatabases(ns).Delete(t.Context(), "app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Gone(t, "PostgresDatabase", func(ctx context.Context) error {
		_, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "app", metav1.GetOptions{})
		return err
	})
	// Delete: database and roles dropped, children gone.
	if databaseExists(t, ns, "orders") || roleExists(t, ns, "orders_admin") || roleExists(t, ns, "orders_rw") {
		t.Error("Delete policy left the orders database or its roles behind")
	}
	kit.Gone(t, "orders admin Secret", func(ctx context.Context) error {
		_, err := kube.CoreV1().Secrets(ns).Get(ctx, "app-orders-admin", metav1.GetOptions{})
		return err
	})
	// Retain: database, roles, Secrets, ConfigMap and CNPG Database kept.
	if !databaseExists(t, ns, "catalog") || !roleExists(t, ns, "catalog_admin") {
		t.Error("Retain policy lost the catalog database or its roles")
	}
	kit.SettleGC(t, ns) // what the garbage collector would remove is gone by now
	sec, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "app-catalog-admin", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("retained Secret: %v", err)
	}
	if len(sec.OwnerReferences) != 0 {
		t.Errorf("retained Secret still has owners %v", sec.OwnerReferences)
	}
	if _, err := pg.CNPGV1().Databases(ns).Get(t.Context(), "app-catalog", metav1.GetOptions{}); err != nil {
		t.Errorf("retained CNPG Database: %v", err)
	}

	// A new PostgresDatabase of the same name adopts what was retained,
	// with the same password.
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "catalog", DeletionPolicy: pgv1.DeletionPolicyRetain})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	again, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "app-catalog-admin", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(again.Data["password"]) != string(sec.Data["password"]) {
		t.Error("adoption regenerated the password")
	}
	connectAs(t, ns, "app-catalog-config", "app-catalog-rw")
}

func TestClusterRetainKeepsCNPGClusterAndSecret(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{})
	// With superuser access, so that there is a superuser Secret to keep.
	newCluster(t, ns, "kept", class, pgv1.ClusterSettings{SuperuserAccess: ptr.To(true)}, pgv1.DeletionPolicyRetain)
	kit.WaitCluster(t, ns, "kept", pgv1.PhaseReady, 120*time.Second)
	if err := pg.PostgresV1alpha1().PostgresClusters(ns).Delete(t.Context(), "kept", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Gone(t, "PostgresCluster", func(ctx context.Context) error {
		_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "kept", metav1.GetOptions{})
		return err
	})
	kit.SettleGC(t, ns) // what the garbage collector would remove is gone by now
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "kept", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Retain deleted the CNPG Cluster: %v", err)
	}
	if len(cl.OwnerReferences) != 0 {
		t.Errorf("kept CNPG Cluster still owned: %v", cl.OwnerReferences)
	}
	sec, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "kept-superuser", metav1.GetOptions{})
	if err != nil || len(sec.OwnerReferences) != 0 {
		t.Fatalf("kept superuser Secret: %v %v", err, sec.OwnerReferences)
	}

	// A new PostgresCluster of the same name takes them over, same
	// password: superuserAccess unset keeps the access the kept CNPG
	// Cluster has.
	newCluster(t, ns, "kept", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "kept", pgv1.PhaseReady, 120*time.Second)
	again, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "kept-superuser", metav1.GetOptions{})
	if err != nil || string(again.Data["password"]) != string(sec.Data["password"]) || len(again.OwnerReferences) != 1 {
		t.Fatalf("adopted Secret: %v, owners %v, same password %v", err, again.OwnerReferences,
			string(again.Data["password"]) == string(sec.Data["password"]))
	}
}
