package realcnpg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cluster"
	"github.com/setpoint-dev/setpoint/test/cnpgsim"
)

// Two instances and a PgBouncer Pooler on real CNPG: the application
// writes through the pooler. A switchover to the replica, asked as
// `kubectl cnpg promote` asks it, while an application writes through -rw:
// setpoint's status follows the new primary, the PostgresDatabase stays
// Ready, and every row Postgres acknowledged is on the new primary. Then
// the primary's Pod is deleted, CNPG fails over, and the PostgresDatabase
// stays Ready throughout (a Ready database stays Ready through its
// cluster's transient states) while the written rows survive.
func TestPoolerSwitchoverAndFailoverOnRealCNPG(t *testing.T) {
	ns := kit.Namespace(t)
	class := "ha-" + ns
	smallClass(t, class, func(s *pgv1.ClusterSettings) {
		s.Instances = ptr.To[int32](2)
		s.ConnectionPooler = &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(true), Instances: ptr.To[int32](1), PoolMode: pgv1.PoolModeTransaction}
	})
	createCluster(t, ns, "shop", class)
	start := time.Now()
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 8*time.Minute)
	t.Logf("PostgresCluster with 2 instances and a pooler Ready in %s", time.Since(start).Round(time.Second))
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)

	admin := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	for _, ddl := range []string{"CREATE TABLE items (id bigserial PRIMARY KEY, name text)", "CREATE TABLE ledger (id int PRIMARY KEY)"} {
		if _, err := admin.Exec(t.Context(), ddl); err != nil {
			t.Fatalf("admin: %s: %v", ddl, err)
		}
	}
	// Ready means PgBouncer is available now: CNPG's Pooler counts Pods
	// created, so setpoint reads PgBouncer's Deployment (this failed
	// before it did).
	pooled := kit.ConnectAsVia(t, ns, "shop", "shop-pooler-rw", "orders", "app-orders-rw")
	if _, err := pooled.Exec(t.Context(), "INSERT INTO items (name) VALUES ('through the pooler')"); err != nil {
		t.Fatalf("rw writes through PgBouncer: %v", err)
	}
	_ = pooled.Close(t.Context())
	_ = admin.Close(t.Context())
	rolesThroughPoolers(t, ns)

	switchover(t, ns)
	failover(t, ns)
}

// rolesThroughPoolers logs every role of the database in through
// PgBouncer: _admin and _ro through -rw, with the privileges setpoint
// granted, and _ro through -ro, which CNPG points at the replica: the row
// written on the primary streams there.
func rolesThroughPoolers(t *testing.T, ns string) {
	t.Helper()
	var n int
	admin := kit.ConnectAsVia(t, ns, "shop", "shop-pooler-rw", "orders", "app-orders-admin")
	defer func() { _ = admin.Close(context.WithoutCancel(t.Context())) }()
	// The simple protocol: no prepared statement to outlive PgBouncer's
	// transaction-mode server assignment.
	simple := pgx.QueryExecModeSimpleProtocol
	if err := admin.QueryRow(t.Context(), "SELECT count(*) FROM items", simple).Scan(&n); err != nil || n != 1 {
		t.Errorf("admin reads %d rows through PgBouncer (%v), want 1", n, err)
	}
	ro := kit.ConnectAsVia(t, ns, "shop", "shop-pooler-rw", "orders", "app-orders-ro")
	defer func() { _ = ro.Close(context.WithoutCancel(t.Context())) }()
	var pgErr *pgconn.PgError
	if _, err := ro.Exec(t.Context(), "INSERT INTO items (name) VALUES ('no')"); !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Errorf("ro INSERT through PgBouncer: %v, want insufficient_privilege", err)
	}
	replica := kit.ConnectAsVia(t, ns, "shop", "shop-pooler-ro", "orders", "app-orders-ro")
	defer func() { _ = replica.Close(context.WithoutCancel(t.Context())) }()
	kit.Eventually(t, time.Minute, "the row streams to the replica, read as _ro through shop-pooler-ro", func(ctx context.Context) (bool, string, error) {
		var inRecovery bool
		err := replica.QueryRow(ctx, "SELECT pg_is_in_recovery(), (SELECT count(*) FROM items)", simple).Scan(&inRecovery, &n)
		return err == nil && inRecovery && n == 1, fmt.Sprintf("in recovery %t, %d rows", inRecovery, n), err
	})
}

// switchover promotes the replica while an application writes, and holds
// CNPG and setpoint to what they promise: no acknowledged row lost,
// setpoint's currentPrimary the new one, the database never out of Ready.
func switchover(t *testing.T, ns string) {
	t.Helper()
	old := cnpgPrimary(t, ns, "shop")
	replica := otherInstance(t, ns, "shop", old)
	w := startAckWriter(t, ns, "shop", "orders", "ledger", "app-orders-rw")
	kit.Eventually(t, time.Minute, "the application writes through -rw", func(context.Context) (bool, string, error) {
		n := w.ackedCount()
		return n >= 20, fmt.Sprintf("%d rows acknowledged", n), nil
	})
	phases := watchPhases(t, ns, "shop")
	promote(t, ns, "shop", replica)
	start := time.Now()
	healthyWithPrimary(t, ns, "CNPG switches over to "+replica, func(p string) bool { return p == replica })
	t.Logf("switched over from %s to %s in %s", old, replica, time.Since(start).Round(time.Second))
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 2*time.Minute)
	// CNPG is healthy again once the new primary serves; the demoted
	// instance restarts as a replica after that (on a loaded machine the
	// PostgresCluster was Ready with 1 ready instance first): setpoint's
	// status must follow it to both.
	kit.Eventually(t, 2*time.Minute, "PostgresCluster status shows the new primary and 2 ready instances", func(ctx context.Context) (bool, string, error) {
		pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		st := pc.Status
		return st.CurrentPrimary == replica && st.ReadyInstances == 2,
			fmt.Sprintf("currentPrimary %q, readyInstances %d", st.CurrentPrimary, st.ReadyInstances), nil
	})
	// The application writes on the new primary by itself.
	after := w.ackedCount()
	kit.Eventually(t, time.Minute, "the application writes on the new primary", func(context.Context) (bool, string, error) {
		n := w.ackedCount()
		return n >= after+20, fmt.Sprintf("%d rows acknowledged, %d at the switchover's end", n, after), nil
	})
	acked, uncertain, errs := w.finish()
	t.Logf("the application: %d rows acknowledged, %d unanswered; %d errors, the first: %q", len(acked), len(uncertain), len(errs), first(errs))
	cnpgPhases, dbPhases := phases.seen()
	clusterPhases := phases.clusterPhases()
	t.Logf("through the switchover: CNPG %q, PostgresCluster %q", cnpgPhases, clusterPhases)
	knownPhases(t, cnpgPhases)
	if !slices.Contains(clusterPhases, pgv1.PhaseConfiguring) {
		t.Errorf("PostgresCluster phases through the switchover: %q, want Configuring (CNPG's %q) among them", clusterPhases, "Switchover in progress")
	}
	if slices.ContainsFunc(dbPhases, func(p pgv1.Phase) bool { return p != pgv1.PhaseReady }) {
		t.Errorf("the PostgresDatabase left Ready during the switchover: %q", dbPhases)
	}
	rw := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-rw")
	checkNoRowLost(t, rw, "ledger", acked, uncertain)
}

// failover deletes the primary's Pod: CNPG promotes the other instance.
func failover(t *testing.T, ns string) {
	t.Helper()
	old := cnpgPrimary(t, ns, "shop")
	phases := watchPhases(t, ns, "shop")
	if err := kube.CoreV1().Pods(ns).Delete(t.Context(), old, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatalf("delete the primary's Pod %s: %v", old, err)
	}
	start := time.Now()
	healthyWithPrimary(t, ns, "CNPG fails over", func(p string) bool { return p != old })
	t.Logf("failed over from %s in %s", old, time.Since(start).Round(time.Second))
	pc := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 2*time.Minute)
	if pc.Status.CurrentPrimary == old {
		t.Errorf("PostgresCluster still names %s primary after the failover", old)
	}
	cnpgPhases, dbPhases := phases.seen()
	clusterPhases := phases.clusterPhases()
	t.Logf("through the failover: CNPG %q, PostgresCluster %q", cnpgPhases, clusterPhases)
	knownPhases(t, cnpgPhases)
	if len(cnpgPhases) < 2 {
		t.Errorf("CNPG's phase never left %q during the failover: the test saw no transient state", cnpgPhases)
	}
	// CNPG fails over for about 30 s ("Failing over", then "Waiting for
	// the instances to become active"), far longer than setpoint holds a
	// phase back (phaseSettle): the PostgresCluster reports it, never as
	// Failed.
	transient := map[pgv1.Phase]bool{}
	for _, c := range cnpgPhases {
		if p, _ := cluster.MapCNPGPhase(c); p != pgv1.PhaseReady {
			transient[p] = true
		}
	}
	if !slices.ContainsFunc(clusterPhases, func(p pgv1.Phase) bool { return transient[p] }) {
		t.Errorf("PostgresCluster phases through the failover: %q, want the phase of one of CNPG's %q among them", clusterPhases, cnpgPhases)
	}
	if slices.Contains(clusterPhases, pgv1.PhaseFailed) {
		t.Errorf("the PostgresCluster was Failed during the failover: %q", clusterPhases)
	}
	if slices.ContainsFunc(dbPhases, func(p pgv1.Phase) bool { return p != pgv1.PhaseReady }) {
		t.Errorf("the PostgresDatabase left Ready during the failover: %q", dbPhases)
	}

	rw := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-rw")
	var n int
	if err := rw.QueryRow(t.Context(), "SELECT count(*) FROM items").Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows on the new primary = %d (%v), want 1", n, err)
	}
	if _, err := rw.Exec(t.Context(), "INSERT INTO items (name) VALUES ('after the failover')"); err != nil {
		t.Fatalf("rw writes on the new primary: %v", err)
	}
}

// cnpgPrimary is the CNPG Cluster's current primary.
func cnpgPrimary(t *testing.T, ns, cluster string) string {
	t.Helper()
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), cluster, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cl.Status.CurrentPrimary
}

// healthyWithPrimary waits until CNPG's Cluster shop is healthy with both
// instances ready and a primary that wanted accepts.
func healthyWithPrimary(t *testing.T, ns, what string, wanted func(primary string) bool) {
	t.Helper()
	kit.Eventually(t, 4*time.Minute, what+" and is healthy again", func(ctx context.Context) (bool, string, error) {
		c, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return wanted(c.Status.CurrentPrimary) && c.Status.Phase == cnpgsim.PhaseHealthy && c.Status.ReadyInstances == 2,
			c.Status.Phase + ", primary " + c.Status.CurrentPrimary, nil
	})
}

// otherInstance is the name of the cluster's instance Pod that is not
// primary.
func otherInstance(t *testing.T, ns, cluster, primary string) string {
	t.Helper()
	pods, err := kube.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "cnpg.io/cluster=" + cluster + ",cnpg.io/podRole=instance"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Name != primary {
			return p.Name
		}
	}
	t.Fatalf("no instance of %s besides %s among %d Pods", cluster, primary, len(pods.Items))
	return ""
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
