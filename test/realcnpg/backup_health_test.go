package realcnpg

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// Backup health on real CNPG, the real barman-cloud plugin and the node's
// S3 store (which checks no key, so the Secret is broken the one way the
// plugin itself notices: its access key is gone). Within 3 minutes of a
// WAL switch the PostgresCluster shows BackupHealthy False
// (ArchivingFailing) quoting CNPG's own ContinuousArchiving message, word
// for word, while it stays Ready; the archiving gauge of the in-cluster
// operator reads 0, and exactly one BackupsFailing Event is written. An
// on-demand backup taken meanwhile fails. The key back, it clears by
// itself (Postgres retries the refused file; no WAL switch), to
// LastBackupFailed — archiving works, the last backup is the failed one
// — and to BackupsHealthy once a backup succeeds, with one
// BackupsRecovered Event and the last-backup gauge at its time.
func TestBackupHealthOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	token := kit.MetricsReaderToken(t, ns)
	class := s3BackupClass(t, ns, "")
	createCluster(t, ns, "shop", class)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	kit.SwitchWAL(t, ns, "shop")
	waitBackupHealthy(t, ns, pgv1.ReasonBackupsHealthy, 3*time.Minute)
	waitBackupGauge(t, token, ns, "setpoint_cluster_wal_archiving_ok", 1)

	start := time.Now()
	setCredentials(t, ns, false)
	closeSegment(t, ns, "shop")
	c := waitBackupHealthy(t, ns, pgv1.ReasonArchivingFailing, 3*time.Minute)
	t.Logf("ArchivingFailing %s after the Secret lost its key", time.Since(start).Round(time.Second))
	cnpg, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	theirs := meta.FindStatusCondition(cnpg.Status.Conditions, "ContinuousArchiving")
	ours := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionBackupHealthy)
	if theirs == nil || theirs.Status != metav1.ConditionFalse || !strings.Contains(ours.Message, theirs.Message) ||
		!strings.Contains(theirs.Message, "missing key ACCESS_KEY_ID, inside secret backup-creds") {
		t.Errorf("CNPG's ContinuousArchiving %+v; setpoint's BackupHealthy message %q: want CNPG's message quoted", theirs, ours.Message)
	}
	if c.Status.Phase != pgv1.PhaseReady {
		t.Errorf("failing archiving changed the phase to %s", c.Status.Phase)
	}
	waitBackupGauge(t, token, ns, "setpoint_cluster_wal_archiving_ok", 0)
	kit.WaitEvents(t, ns, "shop", pgv1.EventBackupsFailing, 1, 30*time.Second)

	name := kit.RequestBackup(t, ns, "shop", "refused")
	kit.Eventually(t, 5*time.Minute, "Backup "+name+" failed", func(ctx context.Context) (bool, string, error) {
		b, err := pg.CNPGV1().Backups(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		if b.Status.Phase == cnpgv1.BackupPhaseCompleted {
			t.Fatalf("Backup %s into a store without credentials completed", name)
		}
		return b.Status.Phase == cnpgv1.BackupPhaseFailed, fmt.Sprintf("phase %q, error %q", b.Status.Phase, b.Status.Error), nil
	})

	start = time.Now()
	setCredentials(t, ns, true)
	waitBackupHealthy(t, ns, pgv1.ReasonLastBackupFailed, 3*time.Minute)
	t.Logf("archiving working again %s after the key came back, by itself", time.Since(start).Round(time.Second))
	waitBackupGauge(t, token, ns, "setpoint_cluster_wal_archiving_ok", 1)

	kit.WaitBackupCompleted(t, ns, kit.RequestBackup(t, ns, "shop", "after"), 5*time.Minute)
	c = waitBackupHealthy(t, ns, pgv1.ReasonBackupsHealthy, 2*time.Minute)
	kit.WaitEvents(t, ns, "shop", pgv1.EventBackupsRecovered, 1, 30*time.Second)
	kit.WaitEvents(t, ns, "shop", pgv1.EventBackupsFailing, 2, 30*time.Second) // ArchivingFailing, then LastBackupFailed
	// The last successful backup is the ObjectStore's status, which the
	// plugin writes apart from CNPG's LastBackupSucceeded: it may reach the
	// PostgresCluster a pass after the condition.
	kit.Eventually(t, 2*time.Minute, "the last successful backup in backupStatus", func(ctx context.Context) (bool, string, error) {
		var err error
		c, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		b := c.Status.BackupStatus
		return b != nil && b.LastSuccessfulBackupTime != nil, fmt.Sprintf("backupStatus %+v", b), nil
	})
	waitBackupGauge(t, token, ns, "setpoint_cluster_last_successful_backup_timestamp_seconds",
		float64(c.Status.BackupStatus.LastSuccessfulBackupTime.Unix()))
}

// setCredentials writes backupClass's Secret whole, or without its access
// key (as a rotation that renamed the keys leaves it).
func setCredentials(t *testing.T, ns string, whole bool) {
	t.Helper()
	s := kit.Secret(t, ns, "backup-creds")
	s.Data = map[string][]byte{"ACCESS_SECRET_KEY": []byte("realcnpg-secret")}
	if whole {
		s.Data["ACCESS_KEY_ID"] = []byte("realcnpg")
	}
	s.StringData = nil
	if _, err := kube.CoreV1().Secrets(ns).Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update Secret backup-creds: %v", err)
	}
}

// closeSegment closes WAL segments as the superuser until Postgres fails
// to archive one: the plugin's sidecar may still hold the old Secret for
// a moment. The plugin archives in seconds, so the archiver is read every
// 5 s.
func closeSegment(t *testing.T, ns, cluster string) {
	t.Helper()
	q := testkit.Conn(kit.ConnectAs(t, ns, cluster, "postgres", cluster+"-superuser"))
	if _, err := testkit.CloseSegmentsUntilRefused(t.Context(), q, testkit.SwitchSegment, testkit.Pace{Poll: 5 * time.Second, Timeout: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}
}

func waitBackupHealthy(t *testing.T, ns, reason string, timeout time.Duration) *pgv1.PostgresCluster {
	t.Helper()
	var c *pgv1.PostgresCluster
	kit.Eventually(t, timeout, "BackupHealthy "+reason, func(ctx context.Context) (bool, string, error) {
		var err error
		if c, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{}); err != nil {
			return false, "", err
		}
		cond := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionBackupHealthy)
		return cond != nil && cond.Reason == reason, fmt.Sprintf("%+v", cond), nil
	})
	return c
}

func waitBackupGauge(t *testing.T, token, ns, metric string, want float64) {
	t.Helper()
	kit.Eventually(t, time.Minute, fmt.Sprintf("%s = %v", metric, want), func(ctx context.Context) (bool, string, error) {
		samples, err := operatorMetrics(ctx, token)
		if err != nil {
			return false, err.Error(), nil
		}
		got, ok := gauge(samples, metric, ns, "shop")
		return ok && got == want, fmt.Sprintf("present %v, %v", ok, got), nil
	})
}
