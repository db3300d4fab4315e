package cnpgsim_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// The barman-cloud plugin's words for a credentials Secret that lacks
// the access key, as CNPG quotes them.
const missingAccessKey = "rpc error: code = Unknown desc = missing key ACCESS_KEY_ID, inside secret backup-creds"

// WAL archiving reports each outcome in ContinuousArchiving, as CNPG's
// instance manager does: True once a new primary's first WAL file is
// archived; False with the plugin's error while the store refuses (its
// credentials Secret lost a key), nothing reaching the store, and a
// Backup failing with the same error; True again by itself once the
// Secret is whole (Postgres retries the refused file).
func TestArchivingReportsEachOutcome(t *testing.T) {
	ns := newNamespace(t)
	const dest = "s3://backups/outcome"
	creds := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "backup-creds", Namespace: ns},
		Data: map[string][]byte{"ACCESS_KEY_ID": []byte("id"), "ACCESS_SECRET_KEY": []byte("secret")}}
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), creds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	key := func(k string) *barmanv1.SecretKeySelector {
		return &barmanv1.SecretKeySelector{Name: "backup-creds", Key: k}
	}
	store := &barmanv1.ObjectStore{ObjectMeta: metav1.ObjectMeta{Name: "store", Namespace: ns},
		Spec: barmanv1.ObjectStoreSpec{Configuration: barmanv1.BarmanObjectStoreConfiguration{DestinationPath: dest,
			S3Credentials: &barmanv1.S3Credentials{AccessKeyID: key("ACCESS_KEY_ID"), SecretAccessKey: key("ACCESS_SECRET_KEY")}}}}
	if _, err := pg.BarmanCloudV1().ObjectStores(ns).Create(t.Context(), store, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatal(err)
	}
	newCluster(t, ns, "arc", archivedBy("store", "arc"))
	waitHealthy(t, ns, "arc")
	waitArchiving(t, ns, "arc", metav1.ConditionTrue, "ContinuousArchivingSuccess", "Continuous archiving is working", 60*time.Second)

	setCreds(t, ns, map[string][]byte{"ACCESS_SECRET_KEY": []byte("secret")})
	// The stand-in reads the Secret within 2 s: a segment closed before
	// is still archived. Close segments until one is refused.
	conn, err := dial(t.Context(), readHostMap(t), ns, "arc-rw", "arc", "postgres", "su-arc", "postgres")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	wal, err := testkit.CloseSegmentsUntilRefused(t.Context(), testkit.Conn(conn), testkit.SwitchSegment, testkit.Pace{Poll: time.Second, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	waitArchiving(t, ns, "arc", metav1.ConditionFalse, "ContinuousArchivingFailing", missingAccessKey, 60*time.Second)
	if got := superQuery[string](t, ns, "arc", "postgres", "SELECT coalesce(last_failed_wal, '') FROM pg_stat_archiver"); got != wal {
		t.Errorf("Postgres's last failed WAL is %q, want %s", got, wal)
	}

	newBackup(t, ns, "refused", "arc")
	b := waitBackup(t, ns, "refused", cnpgv1.BackupPhaseFailed)
	if b.Status.Error != missingAccessKey {
		t.Errorf("Backup error %q, want %q", b.Status.Error, missingAccessKey)
	}
	// The Cluster's condition is a status write of its own after the
	// Backup's (BackupStarted comes first, as CNPG writes it).
	eventually(t, 20*time.Second, "LastBackupSucceeded False LastBackupFailed with the plugin's error", func() error {
		c := getCluster(t, ns, "arc")
		if cond := meta.FindStatusCondition(c.Status.Conditions, "LastBackupSucceeded"); cond == nil ||
			cond.Status != metav1.ConditionFalse || cond.Reason != "LastBackupFailed" || cond.Message != missingAccessKey {
			return fmt.Errorf("LastBackupSucceeded = %+v", cond)
		}
		return nil
	})
	if s, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), "store", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	} else if w := s.Status.ServerRecoveryWindow["arc"]; w.LastFailedBackupTime != nil {
		// The plugin notes a failure only when barman's backup itself fails.
		t.Errorf("lastFailedBackupTime %s for a backup refused before barman ran", w.LastFailedBackupTime)
	}

	setCreds(t, ns, map[string][]byte{"ACCESS_KEY_ID": []byte("id"), "ACCESS_SECRET_KEY": []byte("secret")})
	// No WAL switch: Postgres's archiver retries the refused file within
	// a minute by itself.
	waitArchiving(t, ns, "arc", metav1.ConditionTrue, "ContinuousArchivingSuccess", "Continuous archiving is working", 100*time.Second)
	waitArchived(t, archiveDirFor(dest, "arc"), wal)
}

func setCreds(t *testing.T, ns string, data map[string][]byte) {
	t.Helper()
	s, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "backup-creds", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Data = data
	if _, err := kube.CoreV1().Secrets(ns).Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func waitArchiving(t *testing.T, ns, name string, status metav1.ConditionStatus, reason, message string, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, fmt.Sprintf("ContinuousArchiving %s %s", status, reason), func() error {
		c, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cond := meta.FindStatusCondition(c.Status.Conditions, "ContinuousArchiving")
		if cond == nil || cond.Status != status || cond.Reason != reason || cond.Message != message {
			return fmt.Errorf("ContinuousArchiving = %+v", cond)
		}
		return nil
	})
}
