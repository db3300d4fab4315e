package realcnpg

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Backups through the real barman-cloud plugin into the node's S3 store:
// an on-demand backup (setpoint's backup-request annotation) becomes a
// plugin Backup that CNPG and the plugin's sidecar complete, the class's
// schedule becomes a ScheduledBackup whose Backups complete too, and
// setpoint reports the recovery window the plugin wrote in the ObjectStore.
func TestBackupsOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	class := s3BackupClass(t, ns, "* * * * *") // every minute
	createCluster(t, ns, "shop", class)
	start := time.Now()
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	t.Logf("PostgresCluster with backups Ready in %s", time.Since(start).Round(time.Second))

	start = time.Now()
	name := kit.RequestBackup(t, ns, "shop", "first")
	b := kit.WaitBackupCompleted(t, ns, name, 5*time.Minute)
	t.Logf("on-demand Backup %s completed %s after the request (CNPG: %s → %s, backupId %s)", name,
		time.Since(start).Round(time.Second), b.Status.StartedAt, b.Status.StoppedAt, b.Status.BackupID)
	if b.Spec.Method != "plugin" || b.Status.BackupID == "" {
		t.Errorf("Backup %s: method %q, backupId %q; want a plugin backup with barman's id", name, b.Spec.Method, b.Status.BackupID)
	}

	sb, err := pg.CNPGV1().ScheduledBackups(ns).Get(t.Context(), "shop-backup", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ScheduledBackup shop-backup: %v", err)
	}
	if sb.Spec.Method != "plugin" {
		t.Errorf("ScheduledBackup method %q, want plugin", sb.Spec.Method)
	}
	start = time.Now()
	kit.Eventually(t, 4*time.Minute, "a scheduled Backup completed", func(ctx context.Context) (bool, string, error) {
		list, err := pg.CNPGV1().Backups(ns).List(ctx, metav1.ListOptions{LabelSelector: "cnpg.io/scheduled-backup=shop-backup"})
		if err != nil {
			return false, "", err
		}
		var seen []string
		for _, b := range list.Items {
			if b.Status.Phase == cnpgv1.BackupPhaseFailed {
				t.Fatalf("scheduled Backup %s failed: %s", b.Name, b.Status.Error)
			}
			if b.Status.Phase == cnpgv1.BackupPhaseCompleted {
				return true, "", nil
			}
			seen = append(seen, b.Name+" "+b.Status.Phase)
		}
		return false, fmt.Sprint(seen), nil
	})
	t.Logf("a scheduled Backup completed %s after the first one", time.Since(start).Round(time.Second))

	kit.Eventually(t, time.Minute, "recovery window and schedule in status.backupStatus", func(ctx context.Context) (bool, string, error) {
		c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil || c.Status.BackupStatus == nil {
			return false, "no backupStatus", err
		}
		st := c.Status.BackupStatus
		return st.FirstRecoverabilityPoint != nil && st.LastSuccessfulBackupTime != nil && st.LastScheduleTime != nil,
			fmt.Sprintf("%+v", *st), nil
	})
}

// TestPointInTimeRecovery's scenario on real CNPG: rows written at t1 and
// t2 around a target time after a base backup; a PostgresCluster restored
// to the target (CNPG's recovery Job with the plugin's restore sidecar,
// then replay of the archived WAL) has exactly the t1 rows, read through
// the role the PostgresDatabase created: roles and passwords come back
// with the data, so the source's Secret works on the copy. Then a
// PostgresDatabase of the copy adopts them (kit.AdoptRestored).
func TestPointInTimeRecoveryOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	class := s3BackupClass(t, ns, "")
	createCluster(t, ns, "shop", class)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)
	admin := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	if _, err := admin.Exec(t.Context(), "CREATE TABLE items (id serial PRIMARY KEY, label text NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	kit.WaitBackupCompleted(t, ns, kit.RequestBackup(t, ns, "shop", "before-t1"), 5*time.Minute)

	rw := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-rw")
	if _, err := rw.Exec(t.Context(), "INSERT INTO items (label) SELECT 't1-' || g FROM generate_series(1, 1000) AS g"); err != nil {
		t.Fatal(err)
	}
	// targetTime has whole seconds: the target is the next second
	// boundary after the t1 commit, and t2 is committed after it.
	target := time.Now().Truncate(time.Second).Add(time.Second)
	time.Sleep(time.Until(target.Add(200 * time.Millisecond)))
	if _, err := rw.Exec(t.Context(), "INSERT INTO items (label) SELECT 't2-' || g FROM generate_series(1, 1000) AS g"); err != nil {
		t.Fatal(err)
	}
	kit.SwitchWAL(t, ns, "shop") // the segment with t2's commit, where replay stops

	start := time.Now()
	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "copy", Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Restore: &pgv1.RestoreSpec{Source: "shop", TargetTime: &metav1.Time{Time: target}}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := kit.WaitCluster(t, ns, "copy", pgv1.PhaseReady, 8*time.Minute)
	t.Logf("recovery on real CNPG: %s from create to Ready", time.Since(start).Round(time.Second))
	if r := got.Status.RestoredFrom; r == nil || r.Source != "shop" || r.TargetTime == nil || !r.TargetTime.Equal(&metav1.Time{Time: target}) {
		t.Errorf("status.restoredFrom = %+v, want source shop at %s", got.Status.RestoredFrom, target.Format(time.RFC3339))
	}
	restored := kit.ConnectAs(t, ns, "copy", "orders", "app-orders-rw")
	var t1, t2 int
	if err := restored.QueryRow(t.Context(),
		"SELECT count(*) FILTER (WHERE label LIKE 't1-%'), count(*) FILTER (WHERE label LIKE 't2-%') FROM items").Scan(&t1, &t2); err != nil {
		t.Fatal(err)
	}
	if t1 != 1000 || t2 != 0 {
		t.Fatalf("restored to %s: %d t1 rows and %d t2 rows, want exactly the 1000 t1 rows", target.Format(time.RFC3339), t1, t2)
	}
	// The adoption, as both tiers check it: real CNPG applies copy-app's
	// new passwords to the restored roles.
	kit.AdoptRestored(t, ns, "copy", 1000, 3*time.Minute, map[string]string{"orders_rw": "rw"})
}
