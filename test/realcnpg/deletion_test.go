package realcnpg

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// clusterDeletion deletes PostgresCluster shop with policy Retain under
// live databases: the CNPG Cluster keeps running, released, with its
// databases, and so it stays when a database is deleted after it. A new
// PostgresCluster (policy Delete) and PostgresDatabase of the names take
// it all back with the rows; deleting those drops the database in
// Postgres and then the CNPG Cluster with its Pods and volumes.
func clusterDeletion(t *testing.T, ns, class string) {
	admin := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	if _, err := admin.Exec(t.Context(), "CREATE TABLE t (x int); INSERT INTO t VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	_ = admin.Close(t.Context())
	rw := kit.Secret(t, ns, "app-orders-rw")

	kit.DeleteCluster(t, ns, "shop")
	kit.DeleteDatabase(t, ns, "app")
	kit.SettleGC(t, ns)
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Retain deleted the CNPG Cluster: %v", err)
	}
	if len(cl.OwnerReferences) != 0 {
		t.Errorf("kept CNPG Cluster still owned: %v", cl.OwnerReferences)
	}
	for _, s := range []string{"shop-superuser", "app-orders-admin", "app-orders-rw"} {
		if got := kit.Secret(t, ns, s); len(got.OwnerReferences) != 0 {
			t.Errorf("kept Secret %s still owned: %v", s, got.OwnerReferences)
		}
	}
	su := kit.ConnectAs(t, ns, "shop", "postgres", "shop-superuser")
	if !exists(t, su, dbSQL, "orders") || !exists(t, su, roleSQL, "orders_rw") {
		t.Fatal("the retained cluster lost database orders or its role when the PostgresDatabase was deleted")
	}
	if c, err := kit.Login(t, ns, "shop", "orders", "orders_rw", string(rw.Data["password"])); err != nil {
		t.Errorf("orders_rw on the retained cluster: %v", err)
	} else {
		_ = c.Close(t.Context())
	}
	_ = su.Close(t.Context())

	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns},
		Spec:       pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 3*time.Minute)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 2*time.Minute)
	back := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-rw")
	var n int
	if err := back.QueryRow(t.Context(), "SELECT count(*) FROM t WHERE x = 7").Scan(&n); err != nil || n != 1 {
		t.Errorf("rows through Retain and adoption: %d (%v), want 1", n, err)
	}
	// Real CNPG drops a database without FORCE: while a session is
	// connected to it the drop fails and the deletion waits (the stand-in
	// drops WITH (FORCE)). So the application's session ends first.
	_ = back.Close(t.Context())

	kit.DeleteDatabase(t, ns, "app")
	su = kit.ConnectAs(t, ns, "shop", "postgres", "shop-superuser")
	if exists(t, su, dbSQL, "orders") {
		t.Error("database orders left in Postgres after its PostgresDatabase was deleted with policy Delete")
	}
	_ = su.Close(t.Context())
	kit.DeleteCluster(t, ns, "shop")
	kit.Gone(t, "CNPG Cluster shop", func(ctx context.Context) error {
		_, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		return err
	})
	kit.Eventually(t, 3*time.Minute, "the cluster's Pods and volumes gone", func(ctx context.Context) (bool, string, error) {
		sel := metav1.ListOptions{LabelSelector: "cnpg.io/cluster=shop"}
		pods, err := kube.CoreV1().Pods(ns).List(ctx, sel)
		if err != nil {
			return false, "", err
		}
		pvcs, err := kube.CoreV1().PersistentVolumeClaims(ns).List(ctx, sel)
		if err != nil {
			return false, "", err
		}
		return len(pods.Items)+len(pvcs.Items) == 0, fmt.Sprintf("%d Pods, %d PVCs", len(pods.Items), len(pvcs.Items)), nil
	})
}
