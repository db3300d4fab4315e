package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// What the stand-in reports, as the barman-cloud plugin words it, when
// the credentials Secret has lost its access key.
const missingAccessKey = "rpc error: code = Unknown desc = missing key ACCESS_KEY_ID, inside secret backup-creds"

// A cluster whose object store refuses its WAL says so while it stays
// Ready: the credentials Secret loses its access key, and BackupHealthy
// turns False (ArchivingFailing) with the stand-in's message quoted, the
// archiving gauge drops to 0 and one Warning Event is written, however
// many passes follow; the key back, it clears by itself (Postgres archives
// the refused file again), with one Normal Event. A backup taken while
// the store refused shows LastBackupFailed once archiving works again,
// until a backup succeeds.
func TestBackupHealthFollowsTheObjectStore(t *testing.T) {
	ns, op := backupHealthCluster(t, "")
	waitBackupHealth(t, ns, pgv1.ReasonBackupsHealthy, "", 60*time.Second)
	waitGauge(t, op, ns, "setpoint_cluster_wal_archiving_ok", 1)

	t.Run("the store refuses: ArchivingFailing, the gauge at 0, one Event", func(t *testing.T) {
		breakArchiving(t, ns)
		c := waitBackupHealth(t, ns, pgv1.ReasonArchivingFailing, missingAccessKey, 60*time.Second)
		if c.Status.Phase != pgv1.PhaseReady || !meta.IsStatusConditionTrue(c.Status.Conditions, pgv1.ConditionReady) {
			t.Errorf("failing backups changed the phase: %s", c.Status.Phase)
		}
		waitGauge(t, op, ns, "setpoint_cluster_wal_archiving_ok", 0)
		kit.WaitEvents(t, ns, "shop", pgv1.EventBackupsFailing, 1, 20*time.Second)
		// Proof of absence by passes, not by a sleep: five more passes
		// (the resync every 2 s) write no second Event.
		passesAfter(t, op, 5)
		if n := kit.CountEvents(t, ns, "shop", pgv1.EventBackupsFailing); n != 1 {
			t.Errorf("%d %s Events after more passes, want 1", n, pgv1.EventBackupsFailing)
		}
	})

	t.Run("the key back: clears by itself", func(t *testing.T) {
		setBackupCreds(t, ns, true)
		waitBackupHealth(t, ns, pgv1.ReasonBackupsHealthy, "", 100*time.Second)
		waitGauge(t, op, ns, "setpoint_cluster_wal_archiving_ok", 1)
		kit.WaitEvents(t, ns, "shop", pgv1.EventBackupsRecovered, 1, 20*time.Second)
	})

	t.Run("a backup failed while the store refused: LastBackupFailed until one succeeds", func(t *testing.T) {
		breakArchiving(t, ns)
		waitBackupHealth(t, ns, pgv1.ReasonArchivingFailing, missingAccessKey, 60*time.Second)
		name := kit.RequestBackup(t, ns, "shop", "refused")
		kit.Until(t, 60*time.Second, "Backup "+name+" failed", func(ctx context.Context) (bool, error) {
			b, err := pg.CNPGV1().Backups(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			if b.Status.Phase == cnpgv1.BackupPhaseCompleted {
				return false, fmt.Errorf("a backup into a refusing store completed")
			}
			return b.Status.Phase == cnpgv1.BackupPhaseFailed && b.Status.Error == missingAccessKey, nil
		})
		setBackupCreds(t, ns, true)
		// Archiving works again; the last backup is still the failed one.
		waitBackupHealth(t, ns, pgv1.ReasonLastBackupFailed, missingAccessKey, 100*time.Second)
		waitGauge(t, op, ns, "setpoint_cluster_wal_archiving_ok", 1)
		kit.WaitEvents(t, ns, "shop", pgv1.EventBackupsFailing, 3, 20*time.Second) // ArchivingFailing twice, then LastBackupFailed
		kit.WaitBackupCompleted(t, ns, kit.RequestBackup(t, ns, "shop", "after"), 2*time.Minute)
		waitBackupHealth(t, ns, pgv1.ReasonBackupsHealthy, "", 60*time.Second)
		kit.WaitEvents(t, ns, "shop", pgv1.EventBackupsRecovered, 2, 20*time.Second)
		// The recovery window is the ObjectStore's status, which the
		// plugin writes apart from CNPG's LastBackupSucceeded: it may
		// reach the PostgresCluster a pass later than the condition.
		var c *pgv1.PostgresCluster
		kit.Until(t, 60*time.Second, "the recovery window in backupStatus", func(ctx context.Context) (bool, error) {
			var err error
			c, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			b := c.Status.BackupStatus
			return b != nil && b.LastSuccessfulBackupTime != nil && b.FirstRecoverabilityPoint != nil, nil
		})
		want := float64(c.Status.BackupStatus.LastSuccessfulBackupTime.Unix())
		waitGauge(t, op, ns, "setpoint_cluster_last_successful_backup_timestamp_seconds", want)
	})
}

// backupHealthCluster starts an operator in a new namespace and the
// PostgresCluster "shop" of backupClass with schedule ("" for none), its
// credentials whole, and waits until it is Ready. The resync every 2 s
// gives a pass soon after each change the stand-in makes.
func backupHealthCluster(t *testing.T, schedule string) (string, *operatorProc) {
	t.Helper()
	ns := kit.Namespace(t)
	op := startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s")
	setBackupCreds(t, ns, true)
	newCluster(t, ns, "shop", backupClass(t, ns, schedule), pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	return ns, op
}

// setBackupCreds writes backupClass's credentials Secret: whole, or
// without its access key (as a rotation that renamed the keys leaves it).
func setBackupCreds(t *testing.T, ns string, whole bool) {
	t.Helper()
	data := map[string][]byte{"ACCESS_SECRET_KEY": []byte("e2e-secret")}
	if whole {
		data["ACCESS_KEY_ID"] = []byte("e2e")
	}
	secrets := kube.CoreV1().Secrets(ns)
	s, err := secrets.Get(t.Context(), "backup-creds", metav1.GetOptions{})
	if err != nil {
		s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "backup-creds", Namespace: ns}, Data: data}
		if _, err := secrets.Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return
	}
	s.Data = data
	if _, err := secrets.Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// breakArchiving takes the access key away and closes WAL segments
// until Postgres fails to archive one (the stand-in reads the Secret
// every 2 s, so the first segment may still be archived).
func breakArchiving(t *testing.T, ns string) {
	t.Helper()
	q := testkit.Conn(connectSuperuser(t, ns, "shop"))
	setBackupCreds(t, ns, false)
	if _, err := testkit.CloseSegmentsUntilRefused(t.Context(), q, testkit.SwitchSegment, testkit.Pace{Poll: time.Second, Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
}

func waitBackupHealth(t *testing.T, ns, reason, message string, timeout time.Duration) *pgv1.PostgresCluster {
	t.Helper()
	var got *pgv1.PostgresCluster
	var last *metav1.Condition
	kit.Until(t, timeout, "BackupHealthy "+reason, func(ctx context.Context) (bool, error) {
		var err error
		if got, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{}); err != nil {
			return false, err
		}
		last = meta.FindStatusCondition(got.Status.Conditions, pgv1.ConditionBackupHealthy)
		return last != nil && last.Reason == reason && strings.Contains(last.Message, message), nil
	})
	if last.ObservedGeneration != got.Generation {
		t.Errorf("BackupHealthy of generation %d, want %d", last.ObservedGeneration, got.Generation)
	}
	return got
}

func waitGauge(t *testing.T, op *operatorProc, ns, name string, want float64) {
	t.Helper()
	// Present and equal: an absent series is not a 0.
	kit.Until(t, 20*time.Second, fmt.Sprintf("%s = %v", name, want), func(context.Context) (bool, error) {
		for _, s := range op.samples(t, name) {
			if s.labels["namespace"] == ns && s.labels["postgrescluster"] == "shop" {
				return s.value == want, nil
			}
		}
		return false, nil
	})
}

// passesAfter waits for n more passes of the cluster controller.
func passesAfter(t *testing.T, op *operatorProc, n float64) {
	t.Helper()
	total := func() float64 {
		var sum float64
		for k, v := range passesBy(t, op) {
			if strings.HasPrefix(k, "postgrescluster ") {
				sum += v
			}
		}
		return sum
	}
	start := total()
	kit.Until(t, 30*time.Second, fmt.Sprintf("%v more cluster passes", n), func(context.Context) (bool, error) {
		return total() >= start+n, nil
	})
}
