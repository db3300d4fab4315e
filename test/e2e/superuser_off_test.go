package e2e_test

import (
	"context"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A cluster created without superuserAccess — CloudNativePG's default,
// and setpoint's — has no superuser login at all, and setpoint still does
// everything: the cluster becomes Ready, a database gets its roles and
// privileges (granted as its <db>_admin), and the collector samples
// Postgres (as setpoint_monitor). postgres cannot log in over the network.
func TestClusterWithoutSuperuser(t *testing.T) {
	ns := kit.Namespace(t)
	op := startOperator(t, "nosuper-op", "--leader-elect=false", "--namespace", ns,
		"--postgres-host-map", hostMap, "--postgres-sample-interval", sampleInterval.String())
	class := "e2e-" + ns
	newClassAsGiven(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
		Storage: &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("1Gi"))}})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	pc := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)

	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Spec.EnableSuperuserAccess == nil || *cl.Spec.EnableSuperuserAccess {
		t.Errorf("CNPG Cluster enableSuperuserAccess = %v, want false", cl.Spec.EnableSuperuserAccess)
	}
	if _, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "shop-superuser", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("superuser Secret generated with superuser access off (%v)", err)
	}
	if r := pc.Status.Resources; r == nil || r.SuperUserSecretRef != nil || r.MonitorSecretRef == nil {
		t.Errorf("status.resources = %+v, want a monitor Secret and no superuser Secret", r)
	}
	var refused *pgconn.PgError
	if _, err := kit.Login(t, ns, "shop", "postgres", "postgres", rand.Text()); !errors.As(err, &refused) || refused.Code != "28P01" {
		t.Errorf("postgres logs in over the network with superuser access off: %v", err)
	}

	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	admin := connectAs(t, ns, "app-orders-config", "app-orders-admin")
	execSQL(t, admin, "CREATE TABLE items (id int PRIMARY KEY)")
	execSQL(t, connectAs(t, ns, "app-orders-config", "app-orders-rw"), "INSERT INTO items VALUES (1)")
	ro := connectAs(t, ns, "app-orders-config", "app-orders-ro")
	if n := queryString(t, ro, "SELECT count(*)::text FROM items"); n != "1" {
		t.Errorf("ro reads %s rows, want 1", n)
	}
	if _, err := ro.Exec(t.Context(), "INSERT INTO items VALUES (2)"); !errors.As(err, &refused) || refused.Code != "42501" {
		t.Errorf("ro INSERT: %v, want insufficient_privilege", err)
	}

	kit.Until(t, withinTwoSamples, "the collector's first sample", func(ctx context.Context) (bool, error) {
		c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return c.Status.Postgres != nil && c.Status.Postgres.AcceptsWrites && c.Status.Postgres.Connections >= 1, nil
	})
	got, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, pgv1.ConditionPostgresUnreachable); c != nil {
		t.Errorf("%s=%s (%s) with the collector as setpoint_monitor", c.Type, c.Status, c.Message)
	}
	if v := op.metric(t, "setpoint_postgres_accepts_writes", "namespace", ns, "postgrescluster", "shop"); v != 1 {
		t.Errorf("setpoint_postgres_accepts_writes = %v, want 1", v)
	}
}
