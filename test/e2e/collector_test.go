package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// sampleInterval is the collector's interval in these tests: short, so
// that "within two intervals" is seconds.
const sampleInterval = 2 * time.Second

// withinTwoSamples is how soon a change of Postgres must show in status:
// two intervals (the sample after the change, plus jitter), and the pass
// and status write the edge causes.
const withinTwoSamples = 2*sampleInterval + 5*time.Second

// waitCondition waits until the cluster's condition typ has status.
func waitCondition(t *testing.T, ns, name, typ string, status metav1.ConditionStatus, timeout time.Duration) *pgv1.PostgresCluster {
	t.Helper()
	var got *pgv1.PostgresCluster
	kit.Until(t, timeout, fmt.Sprintf("%s=%s", typ, status), func(ctx context.Context) (bool, error) {
		var err error
		got, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, typ)
		return c != nil && c.Status == status, nil
	})
	return got
}

// expectEvent checks that an Event of type typ and reason was recorded
// for the cluster.
func expectEvent(t *testing.T, ns, name, typ, reason string) {
	t.Helper()
	kit.Until(t, 10*time.Second, "Event "+reason, func(ctx context.Context) (bool, error) {
		evs, err := kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name + ",reason=" + reason})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Type == typ {
				return true, nil
			}
		}
		return false, nil
	})
}

func execAll(t *testing.T, ns string, statements ...string) {
	t.Helper()
	conn := connectSuperuser(t, ns, "shop")
	for _, s := range statements {
		if _, err := conn.Exec(t.Context(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestCollector(t *testing.T) {
	ns := kit.Namespace(t)
	op := startOperator(t, "collector-op", "--leader-elect=false", "--namespace", ns,
		"--postgres-host-map", hostMap, "--postgres-sample-interval", sampleInterval.String())
	class := "e2e-" + ns
	// Superuser access on: the test makes the primary read-only with
	// ALTER SYSTEM, which only a superuser may run. The collector samples
	// as the monitor role all the same.
	newClass(t, class, pgv1.ClusterSettings{
		Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
		Storage:         &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("1Gi"))},
		SuperuserAccess: ptr.To(true),
	})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)

	t.Run("first sample recorded in status and metrics", func(t *testing.T) {
		var c *pgv1.PostgresCluster
		kit.Until(t, withinTwoSamples, "status.postgres", func(ctx context.Context) (bool, error) {
			var err error
			c, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
			return err == nil && c.Status.Postgres != nil, err
		})
		h := c.Status.Postgres
		if !h.AcceptsWrites || h.SizeBytes != 1<<30 || h.UsedBytes <= 0 || h.UsedBytes != h.DatabaseBytes+h.WALBytes ||
			h.WALBytes <= 0 || h.MaxConnections <= 0 || h.Connections < 1 || h.UsedPercent == nil || h.ReplicationLagBytes != nil {
			t.Errorf("status.postgres = %+v", h)
		}
		for _, typ := range []string{pgv1.ConditionPostgresUnreachable, pgv1.ConditionNotAcceptingWrites,
			pgv1.ConditionConnectionsSaturated, pgv1.ConditionStorageNearlyFull} {
			if cond := meta.FindStatusCondition(c.Status.Conditions, typ); cond != nil {
				t.Errorf("healthy cluster has %s=%s", typ, cond.Status)
			}
		}
		match := []string{"namespace", ns, "postgrescluster", "shop"}
		if v := op.metric(t, "setpoint_postgres_used_bytes", match...); v <= 0 {
			t.Errorf("setpoint_postgres_used_bytes = %v", v)
		}
		if v := op.metric(t, "setpoint_postgres_storage_size_bytes", match...); v != 1<<30 {
			t.Errorf("setpoint_postgres_storage_size_bytes = %v, want 1Gi", v)
		}
		if v := op.metric(t, "setpoint_postgres_accepts_writes", match...); v != 1 {
			t.Errorf("setpoint_postgres_accepts_writes = %v, want 1", v)
		}
		if v := op.metric(t, "setpoint_postgres_max_connections", match...); v <= 0 {
			t.Errorf("setpoint_postgres_max_connections = %v", v)
		}
		// A primary replays nothing: the replica's replay time is absent
		// (real Postgres answers pg_last_xact_replay_timestamp() NULL).
		if n := len(op.samples(t, "setpoint_postgres_last_replay_timestamp_seconds")); n != 0 {
			t.Errorf("a primary exports %d setpoint_postgres_last_replay_timestamp_seconds series", n)
		}
	})

	t.Run("steady state costs no write and no pass", func(t *testing.T) {
		settleIdle(t, op)
		w := writesBy(t, op)
		passes := passesBy(t, op)
		edges := op.metric(t, "setpoint_collector_edges_total")
		sql := op.metric(t, "setpoint_pipeline_statements_total")
		ok := op.metric(t, "setpoint_collector_samples_total", "result", "ok")
		// Proof by the collector's own count: five more samples were
		// taken (five intervals), not by a sleep.
		kit.Until(t, 10*sampleInterval, "five more samples", func(context.Context) (bool, error) {
			return op.metric(t, "setpoint_collector_samples_total", "result", "ok") >= ok+5, nil
		})
		if d := diffCounts(w, writesBy(t, op)); len(d) != 0 {
			t.Errorf("steady samples wrote: %s", strings.Join(d, ", "))
		}
		if d := diffCounts(passes, passesBy(t, op)); len(d) != 0 {
			t.Errorf("steady samples caused passes: %s", strings.Join(d, ", "))
		}
		if d := op.metric(t, "setpoint_collector_edges_total") - edges; d != 0 {
			t.Errorf("steady samples crossed %v edges", d)
		}
		if d := op.metric(t, "setpoint_pipeline_statements_total") - sql; d != 0 {
			t.Errorf("the pipelines ran %v statements while the cluster was steady", d)
		}
	})

	t.Run("read-only primary reported and cleared", func(t *testing.T) {
		execAll(t, ns, "ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()")
		c := waitCondition(t, ns, "shop", pgv1.ConditionNotAcceptingWrites, metav1.ConditionTrue, withinTwoSamples)
		if cond := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionNotAcceptingWrites); cond.Reason != "ReadOnly" {
			t.Errorf("NotAcceptingWrites reason = %s, want ReadOnly", cond.Reason)
		}
		if c.Status.Phase != pgv1.PhaseReady || !meta.IsStatusConditionTrue(c.Status.Conditions, pgv1.ConditionReady) {
			t.Errorf("a read-only primary changed the phase: %s", c.Status.Phase)
		}
		if c.Status.Postgres == nil || c.Status.Postgres.AcceptsWrites {
			t.Errorf("status.postgres not refreshed with the edge: %+v", c.Status.Postgres)
		}
		expectEvent(t, ns, "shop", "Warning", pgv1.ConditionNotAcceptingWrites)
		if v := op.metric(t, "setpoint_postgres_accepts_writes", "namespace", ns, "postgrescluster", "shop"); v != 0 {
			t.Errorf("setpoint_postgres_accepts_writes = %v, want 0", v)
		}
		execAll(t, ns, "SET default_transaction_read_only = off",
			"ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()")
		waitCondition(t, ns, "shop", pgv1.ConditionNotAcceptingWrites, metav1.ConditionFalse, withinTwoSamples)
		expectEvent(t, ns, "shop", "Normal", "AcceptingWrites")
	})

	t.Run("stopped primary reported and cleared", func(t *testing.T) {
		if err := sim.StopServer(t.Context(), ns, "shop"); err != nil {
			t.Fatal(err)
		}
		c := waitCondition(t, ns, "shop", pgv1.ConditionPostgresUnreachable, metav1.ConditionTrue, withinTwoSamples)
		if cond := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionNotAcceptingWrites); cond == nil || cond.Status != metav1.ConditionUnknown {
			t.Errorf("NotAcceptingWrites while unreachable = %+v, want Unknown", cond)
		}
		expectEvent(t, ns, "shop", "Warning", pgv1.ConditionPostgresUnreachable)
		if v := op.metric(t, "setpoint_postgres_sample_failing", "namespace", ns, "postgrescluster", "shop"); v != 1 {
			t.Errorf("setpoint_postgres_sample_failing = %v, want 1", v)
		}
		if err := sim.StartServer(t.Context(), ns, "shop"); err != nil {
			t.Fatal(err)
		}
		c = waitCondition(t, ns, "shop", pgv1.ConditionPostgresUnreachable, metav1.ConditionFalse, withinTwoSamples)
		if cond := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionNotAcceptingWrites); cond == nil || cond.Status != metav1.ConditionFalse {
			t.Errorf("NotAcceptingWrites after recovery = %+v, want False", cond)
		}
		expectEvent(t, ns, "shop", "Normal", "PostgresReachable")
		kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
		if v := op.metric(t, "setpoint_postgres_sample_failing", "namespace", ns, "postgrescluster", "shop"); v != 0 {
			t.Errorf("setpoint_postgres_sample_failing = %v after recovery, want 0", v)
		}
	})

	t.Run("deleted cluster leaves no series", func(t *testing.T) {
		if v := op.metric(t, "setpoint_postgres_used_bytes", "namespace", ns, "postgrescluster", "shop"); v <= 0 {
			t.Fatalf("before the deletion: setpoint_postgres_used_bytes = %v", v)
		}
		if err := pg.PostgresV1alpha1().PostgresClusters(ns).Delete(t.Context(), "shop", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		kit.Until(t, 60*time.Second, "cluster gone", func(ctx context.Context) (bool, error) {
			_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
		// The operator hears of the deletion from its watch, so the
		// series go eventually; one left behind would stay for good.
		kit.Until(t, withinTwoSamples, "no setpoint_postgres_* series of the deleted cluster", func(context.Context) (bool, error) {
			for _, family := range []string{"setpoint_postgres_used_bytes", "setpoint_postgres_sample_failing",
				"setpoint_postgres_max_connections", "setpoint_postgres_sample_timestamp_seconds"} {
				for _, s := range op.samples(t, family) {
					if s.labels["namespace"] == ns {
						return false, nil
					}
				}
			}
			return true, nil
		})
	})
}

// TestCollectorRunsOnlyWhileLeading: the standby samples nothing and
// exports no per-cluster gauge; once the leader steps down, the new
// leader's collector takes over.
func TestCollectorRunsOnlyWhileLeading(t *testing.T) {
	ns := kit.Namespace(t)
	lease := "collector-" + ns
	args := []string{"--namespace", ns, "--postgres-host-map", hostMap,
		"--postgres-sample-interval", sampleInterval.String(), "--leader-election-id", lease}
	holder := func(ctx context.Context) string {
		l, err := kube.CoordinationV1().Leases("setpoint-system").Get(ctx, lease, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	a := startOperator(t, "collector-a", args...)
	kit.Until(t, 30*time.Second, "collector-a leads", func(ctx context.Context) (bool, error) { return holder(ctx) == "collector-a", nil })
	b := startOperator(t, "collector-b", args...)

	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15)})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.Until(t, 10*sampleInterval, "three samples by the leader", func(context.Context) (bool, error) {
		return a.metric(t, "setpoint_collector_samples_total", "result", "ok") >= 3, nil
	})
	if n := b.metric(t, "setpoint_collector_samples_total"); n != 0 {
		t.Errorf("the standby took %v samples", n)
	}
	if n := len(b.samples(t, "setpoint_postgres_used_bytes")); n != 0 {
		t.Errorf("the standby exports %d setpoint_postgres_used_bytes series", n)
	}

	a.signal(syscall.SIGTERM)
	kit.Until(t, 30*time.Second, "collector-b leads", func(ctx context.Context) (bool, error) { return holder(ctx) == "collector-b", nil })
	kit.Until(t, withinTwoSamples+sampleInterval, "a sample by the new leader", func(context.Context) (bool, error) {
		return b.metric(t, "setpoint_postgres_used_bytes", "namespace", ns, "postgrescluster", "shop") > 0, nil
	})
}

// TestStorageNearlyFull runs the operator with a threshold a fresh
// cluster is already over (3 % of 1Gi: a fresh server's databases and
// first WAL segment alone take more), so the edge is real usage against
// the CNPG Cluster's real storage.size; growing the volume tenfold takes
// usage under the threshold and clears it.
func TestStorageNearlyFull(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "nearly-full-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap,
		"--postgres-sample-interval", sampleInterval.String(), "--storage-nearly-full-percent", "3")
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
		Storage: &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("1Gi"))}})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)

	c := waitCondition(t, ns, "shop", pgv1.ConditionStorageNearlyFull, metav1.ConditionTrue, withinTwoSamples)
	h := c.Status.Postgres
	if h == nil || h.SizeBytes != 1<<30 || h.UsedPercent == nil || *h.UsedPercent < 3 {
		t.Fatalf("status.postgres = %+v, want usage of 3 %% or more of 1Gi", h)
	}
	if c.Status.Phase != pgv1.PhaseReady {
		t.Errorf("a nearly full volume changed the phase to %s", c.Status.Phase)
	}
	expectEvent(t, ns, "shop", "Warning", pgv1.ConditionStorageNearlyFull)

	kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) {
		c.Spec.Storage = &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("10Gi"))}
	})
	c = waitCondition(t, ns, "shop", pgv1.ConditionStorageNearlyFull, metav1.ConditionFalse, withinTwoSamples+10*time.Second)
	if h := c.Status.Postgres; h == nil || h.SizeBytes != 10<<30 {
		t.Errorf("status.postgres after the volume grew = %+v, want sizeBytes of 10Gi", h)
	}
	expectEvent(t, ns, "shop", "Normal", "StorageAvailable")
}
