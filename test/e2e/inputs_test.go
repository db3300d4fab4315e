package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Inputs the API server must accept because only Postgres or CloudNativePG
// can judge them: each ends in a status that says what is wrong, and
// recovers when the input is fixed.

// waitReason waits until the cluster's Ready condition has reason at the
// current generation and returns the cluster.
func waitReason(t *testing.T, ns, name, reason string, timeout time.Duration) *pgv1.PostgresCluster {
	t.Helper()
	var got *pgv1.PostgresCluster
	kit.Until(t, timeout, "PostgresCluster "+name+" reason "+reason, func(ctx context.Context) (bool, error) {
		var err error
		got, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := apimeta.FindStatusCondition(got.Status.Conditions, pgv1.ConditionReady)
		return c != nil && c.Reason == reason && c.ObservedGeneration == got.Generation, nil
	})
	return got
}

func updateClass(t *testing.T, name string, mutate func(*pgv1.PostgresClusterClass)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c, err := pg.PostgresV1alpha1().PostgresClusterClasses().Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(c)
		_, err = pg.PostgresV1alpha1().PostgresClusterClasses().Update(t.Context(), c, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("update class: %v", err)
	}
}

func TestParametersComparedAsPostgresDoes(t *testing.T) {
	ns := kit.Namespace(t)
	op := startOperator(t, "params-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1)})
	// Postgres spells it TimeZone, and reads DateStyle "ISO" as "ISO, MDY".
	// log_min_duration_statement is a superuser parameter: setpoint's
	// monitor role (superuser access is off, the default) cannot have
	// Postgres parse it in a session, and compares it as written.
	newCluster(t, ns, "params", class, pgv1.ClusterSettings{
		PostgreSQLConfig: map[string]string{"timezone": "UTC", "DateStyle": "ISO", "work_mem": "16384kB",
			"log_min_duration_statement": "250ms"},
	}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "params", pgv1.PhaseReady, 120*time.Second)
	conn := connectMonitor(t, ns, "params")
	if tz, ds := show(t, conn, "TimeZone"), show(t, conn, "DateStyle"); tz != "UTC" || ds != "ISO, MDY" {
		t.Fatalf("TimeZone %q, DateStyle %q in effect", tz, ds)
	}
	if got := show(t, conn, "log_min_duration_statement"); got != "250ms" {
		t.Fatalf("log_min_duration_statement %q in effect", got)
	}

	t.Run("a value Postgres never reports back is bounded", func(t *testing.T) {
		// wal_buffers -1 asks Postgres to size it: pg_settings shows the
		// computed size, never -1.
		kit.UpdateCluster(t, ns, "params", func(c *pgv1.PostgresCluster) { c.Spec.PostgreSQLConfig["wal_buffers"] = "-1" })
		c := waitReason(t, ns, "params", "ParametersPending", 90*time.Second)
		if c.Status.Phase != pgv1.PhaseConfiguring {
			t.Fatalf("phase %s while parameters are pending", c.Status.Phase)
		}
		slowBefore := slowRechecks(t, op)
		// The wait's start is the condition's lastTransitionTime: move it
		// back past the bound instead of waiting five minutes.
		// CNPG may pass through "Applying configuration" again meanwhile
		// (a restart for the parameter): move the clock back only while
		// the wait is ParametersPending, retrying on a conflict.
		kit.Until(t, 60*time.Second, "ParametersPending moved back past the bound", func(ctx context.Context) (bool, error) {
			c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "params", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			cond := apimeta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionProvisionerReady)
			if cond == nil || cond.Reason != "ParametersPending" {
				return false, nil
			}
			cond.LastTransitionTime = metav1.NewTime(time.Now().Add(-10 * time.Minute))
			_, err = pg.PostgresV1alpha1().PostgresClusters(ns).UpdateStatus(ctx, c, metav1.UpdateOptions{})
			if apierrors.IsConflict(err) {
				return false, nil
			}
			return err == nil, err
		})
		c = waitReason(t, ns, "params", "ParametersNotApplied", 30*time.Second)
		if msg := readyMessage(c); !strings.Contains(msg, `wal_buffers (wanted "-1", in effect "`) {
			t.Errorf("Ready = %q, want wal_buffers with its wanted and effective values", msg)
		}
		// Past the bound the cluster is looked at every two minutes, not
		// every five seconds: the pass that saw it asked for a slow recheck.
		kit.Until(t, 30*time.Second, "a recheck slower than a minute asked for", func(context.Context) (bool, error) {
			return slowRechecks(t, op) > slowBefore, nil
		})

		kit.UpdateCluster(t, ns, "params", func(c *pgv1.PostgresCluster) { delete(c.Spec.PostgreSQLConfig, "wal_buffers") })
		kit.WaitCluster(t, ns, "params", pgv1.PhaseReady, 90*time.Second)
	})
}

func TestInvalidPgHBAIsReported(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "hba-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1)})
	// Only a superuser can read pg_hba_file_rules: the check needs access.
	newCluster(t, ns, "hba", class, pgv1.ClusterSettings{SuperuserAccess: ptr.To(true)}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "hba", pgv1.PhaseReady, 120*time.Second)
	// The shape is valid, so the API server accepts it; only Postgres
	// knows there is no such method. The running server keeps its old
	// rules after the reload, so everything still works: until a restart.
	kit.UpdateCluster(t, ns, "hba", func(c *pgv1.PostgresCluster) { c.Spec.PgHBA = []string{"host all all 10.0.0.0/8 scram-sha-257"} })
	c := kit.WaitCluster(t, ns, "hba", pgv1.PhaseFailed, 90*time.Second)
	msg := readyMessage(c)
	if !strings.HasPrefix(msg, "PgHBAInvalid: ") || !strings.Contains(msg, `invalid authentication method "scram-sha-257"`) ||
		!strings.Contains(msg, "line ") {
		t.Fatalf("Ready = %q, want PgHBAInvalid naming the line and Postgres's error", msg)
	}
	kit.UpdateCluster(t, ns, "hba", func(c *pgv1.PostgresCluster) { c.Spec.PgHBA = []string{"host all all 10.0.0.0/8 scram-sha-256"} })
	kit.WaitCluster(t, ns, "hba", pgv1.PhaseReady, 90*time.Second)
}

func TestInvalidScheduleIsReported(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "schedule-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1)})
	// Every field is in range, so the API server accepts it; CNPG's parser
	// refuses a range that runs backwards.
	newCluster(t, ns, "sched", class, pgv1.ClusterSettings{
		Backup: &pgv1.BackupSpec{Schedule: "0 5-2 * * *", VolumeSnapshotClass: "csi-snapshots"},
	}, pgv1.DeletionPolicyDelete)
	c := kit.WaitCluster(t, ns, "sched", pgv1.PhaseFailed, 120*time.Second)
	cond := apimeta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionBackupReady)
	if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != "ScheduledBackupInvalid" ||
		!strings.Contains(cond.Message, "spec.schedule") {
		t.Fatalf("BackupReady = %+v, want ScheduledBackupInvalid with CNPG's error", cond)
	}
	kit.UpdateCluster(t, ns, "sched", func(c *pgv1.PostgresCluster) { c.Spec.Backup.Schedule = "0 2-5 * * *" })
	c = kit.WaitCluster(t, ns, "sched", pgv1.PhaseReady, 90*time.Second)
	if cond := apimeta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionBackupReady); cond.Reason != "BackupsScheduled" {
		t.Fatalf("BackupReady = %+v after the fix", cond)
	}
}

func TestClassEditNeverGoesBackwards(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "class-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{
		Instances:       ptr.To[int32](1),
		PostgresVersion: ptr.To[int32](16),
		Storage:         &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("2Gi"))},
	})
	newCluster(t, ns, "down", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "down", pgv1.PhaseReady, 120*time.Second)
	running := func() (string, string) {
		cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "down", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cl.Spec.ImageName, cl.Spec.Storage.Size
	}
	image, size := running()

	updateClass(t, class, func(c *pgv1.PostgresClusterClass) { c.Spec.PostgresVersion = ptr.To[int32](15) })
	c := waitReason(t, ns, "down", "DowngradeRefused", 60*time.Second)
	if c.Status.Phase != pgv1.PhaseFailed {
		t.Errorf("phase %s, want Failed", c.Status.Phase)
	}
	if i, s := running(); i != image || s != size {
		t.Fatalf("CNPG Cluster changed to %s / %s", i, s)
	}
	updateClass(t, class, func(c *pgv1.PostgresClusterClass) { c.Spec.PostgresVersion = ptr.To[int32](16) })
	kit.WaitCluster(t, ns, "down", pgv1.PhaseReady, 60*time.Second)

	updateClass(t, class, func(c *pgv1.PostgresClusterClass) { c.Spec.Storage.Size = ptr.To(resource.MustParse("1Gi")) })
	waitReason(t, ns, "down", "StorageShrinkRefused", 60*time.Second)
	if i, s := running(); i != image || s != size {
		t.Fatalf("CNPG Cluster changed to %s / %s", i, s)
	}
	updateClass(t, class, func(c *pgv1.PostgresClusterClass) { c.Spec.Storage.Size = ptr.To(resource.MustParse("3Gi")) })
	kit.WaitCluster(t, ns, "down", pgv1.PhaseReady, 60*time.Second)
}

// slowRechecks counts the cluster passes that waited and asked to be looked
// at again in more than a minute.
func slowRechecks(t *testing.T, op *operatorProc) float64 {
	t.Helper()
	match := []string{"name", "postgrescluster", "outcome", "wait"}
	all := op.metric(t, "setpoint_reconcile_recheck_seconds_count", match...)
	return all - op.metric(t, "setpoint_reconcile_recheck_seconds_bucket", append(match, "le", "60")...)
}
