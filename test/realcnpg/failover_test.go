package realcnpg

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/cnpgsim"
)

// Two instances and a PgBouncer Pooler on real CNPG: the application
// writes through the pooler; the primary's Pod is deleted, CNPG fails
// over to the replica, and the PostgresDatabase stays Ready throughout
// (a Ready database stays Ready through its cluster's transient states)
// while the written row survives on the new primary.
func TestPoolerAndFailoverOnRealCNPG(t *testing.T) {
	ns := newNamespace(t)
	class := "ha-" + ns
	smallClass(t, class, func(s *pgv1.ClusterSettings) {
		s.Instances = ptr.To[int32](2)
		s.ConnectionPooler = &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(true), Instances: ptr.To[int32](1), PoolMode: pgv1.PoolModeTransaction}
	})
	createCluster(t, ns, "shop", class)
	start := time.Now()
	waitCluster(t, ns, "shop", pgv1.PhaseReady, 8*time.Minute)
	t.Logf("PostgresCluster with 2 instances and a pooler Ready in %s", time.Since(start).Round(time.Second))
	createDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	waitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)

	admin := connect(t, ns, "shop", "orders", "app-orders-admin")
	if _, err := admin.Exec(t.Context(), "CREATE TABLE items (id bigserial PRIMARY KEY, name text)"); err != nil {
		t.Fatalf("admin creates a table: %v", err)
	}
	// Ready means PgBouncer is available now: CNPG's Pooler counts Pods
	// created, so setpoint reads PgBouncer's Deployment (this failed
	// before it did).
	pooled := connectVia(t, ns, "shop", "shop-pooler-rw", "orders", "app-orders-rw")
	if _, err := pooled.Exec(t.Context(), "INSERT INTO items (name) VALUES ('through the pooler')"); err != nil {
		t.Fatalf("rw writes through PgBouncer: %v", err)
	}
	_ = pooled.Close(t.Context())
	_ = admin.Close(t.Context())

	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old := cl.Status.CurrentPrimary
	phases := watchPhases(t, ns, "shop")
	if err := kube.CoreV1().Pods(ns).Delete(t.Context(), old, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatalf("delete the primary's Pod %s: %v", old, err)
	}
	start = time.Now()
	eventually(t, 4*time.Minute, "CNPG fails over and is healthy again", func(ctx context.Context) (bool, string, error) {
		c, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return c.Status.CurrentPrimary != old && c.Status.Phase == cnpgsim.PhaseHealthy && c.Status.ReadyInstances == 2,
			c.Status.Phase + ", primary " + c.Status.CurrentPrimary, nil
	})
	t.Logf("failed over from %s in %s", old, time.Since(start).Round(time.Second))
	waitCluster(t, ns, "shop", pgv1.PhaseReady, 2*time.Minute)
	cnpgPhases, dbPhases := phases.seen()
	t.Logf("real CNPG's phases through the failover: %q", cnpgPhases)
	knownPhases(t, cnpgPhases)
	if len(cnpgPhases) < 2 {
		t.Errorf("CNPG's phase never left %q during the failover: the test saw no transient state", cnpgPhases)
	}
	if slices.ContainsFunc(dbPhases, func(p pgv1.Phase) bool { return p != pgv1.PhaseReady }) {
		t.Errorf("the PostgresDatabase left Ready during the failover: %q", dbPhases)
	}

	rw := connect(t, ns, "shop", "orders", "app-orders-rw")
	var n int
	if err := rw.QueryRow(t.Context(), "SELECT count(*) FROM items").Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows on the new primary = %d (%v), want 1", n, err)
	}
	if _, err := rw.Exec(t.Context(), "INSERT INTO items (name) VALUES ('after the failover')"); err != nil {
		t.Fatalf("rw writes on the new primary: %v", err)
	}
}
