package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// backupClass is a class that archives to s3://e2e/<ns> (a folder of the
// CNPG stand-in's state directory), optionally on a schedule.
func backupClass(t *testing.T, ns, schedule string) string {
	t.Helper()
	class := "e2e-" + ns
	// Superuser access on: the tests switch WAL (pg_switch_wal) as postgres.
	newClass(t, class, pgv1.ClusterSettings{
		Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
		Backup:          &pgv1.BackupSpec{ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "s3://e2e/" + ns, CredentialsSecretName: "backup-creds"}, Schedule: schedule},
		SuperuserAccess: ptr.To(true),
	})
	return class
}

// walFolder is where the stand-in keeps serverName's archived WAL for
// backupClass's object store: the cluster's folder is
// <destinationPath>/<namespace>/<serverName>.
func walFolder(ns, serverName string) string {
	return filepath.Join(storeFolder("s3://e2e/"+ns+"/"+ns+"/"+serverName), "wals")
}

// storeFolder is the stand-in's folder for an object store location (see
// the cnpgsim package documentation): one folder per URL segment.
func storeFolder(location string) string {
	scheme, rest, _ := strings.Cut(location, "://")
	return filepath.Join(append([]string{sim.Dir(), "objectstore", scheme}, strings.Split(rest, "/")...)...)
}

// inStandInStore is this tier's testkit.WALArchived: the segment's file
// is in the stand-in's folder for backupClass's object store, where a
// restore reads it: the folder of the serverName the CNPG Cluster
// archives under (the cluster's name, until a major upgrade gives the new
// system a folder of its own). The CNPG Cluster, not the PostgresCluster:
// a retained one archives with no PostgresCluster around.
func inStandInStore(ctx context.Context, ns, cluster string, _ testkit.Query, wal string) (bool, string, error) {
	cl, err := pg.CNPGV1().Clusters(ns).Get(ctx, cluster, metav1.GetOptions{})
	if err != nil {
		return false, "", err
	}
	serverName := cluster
	for _, pl := range cl.Spec.Plugins {
		if name := pl.Parameters["serverName"]; pl.Name == "barman-cloud.cloudnative-pg.io" && name != "" {
			serverName = name
		}
	}
	_, err = os.Stat(filepath.Join(walFolder(ns, serverName), wal))
	if errors.Is(err, fs.ErrNotExist) {
		return false, "not in " + walFolder(ns, serverName), nil
	}
	return err == nil, "", err
}

// Point-in-time recovery through setpoint: rows written at t1 and t2
// around a target time after a base backup; a PostgresCluster restored to
// the target has exactly the t1 rows, read through the role the
// PostgresDatabase created (roles and their passwords are restored with
// the data, so the source's Secret still works) — until a PostgresDatabase
// with spec.adoptFrom takes them over with new passwords (adoptRestoredOverIntruders).
func TestPointInTimeRecovery(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s")
	class := backupClass(t, ns, "")
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	admin := connectAs(t, ns, "app-orders-config", "app-orders-admin")
	execSQL(t, admin, "CREATE TABLE items (id serial PRIMARY KEY, label text NOT NULL)")

	began := time.Now()
	b := kit.WaitBackupCompleted(t, ns, kit.RequestBackup(t, ns, "shop", "before-t1"), 2*time.Minute)
	t.Logf("backup: %s from request to completed (CNPG status %s → %s)", time.Since(began).Round(time.Millisecond),
		b.Status.StartedAt.Format(time.RFC3339), b.Status.StoppedAt.Format(time.RFC3339))

	kit.Until(t, 30*time.Second, "recovery window in status", func(ctx context.Context) (bool, error) {
		c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil || c.Status.BackupStatus == nil {
			return false, err
		}
		st := c.Status.BackupStatus
		return st.FirstRecoverabilityPoint != nil && st.LastSuccessfulBackupTime != nil &&
			st.LastSuccessfulBackupTime.Equal(b.Status.StoppedAt), nil
	})

	rw := connectAs(t, ns, "app-orders-config", "app-orders-rw")
	execSQL(t, rw, "INSERT INTO items (label) SELECT 't1-' || g FROM generate_series(1, 1000) AS g")
	// targetTime has whole seconds: the target is the next second boundary
	// after the t1 commit, and t2 is written after it.
	target := time.Now().Truncate(time.Second).Add(time.Second)
	time.Sleep(time.Until(target.Add(200 * time.Millisecond)))
	execSQL(t, rw, "INSERT INTO items (label) SELECT 't2-' || g FROM generate_series(1, 1000) AS g")
	kit.SwitchWAL(t, ns, "shop")

	began = time.Now()
	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "copy", Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Restore: &pgv1.RestoreSpec{Source: "shop", TargetTime: &metav1.Time{Time: target}}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := kit.WaitCluster(t, ns, "copy", pgv1.PhaseReady, 180*time.Second)
	t.Logf("recovery: %s from create to Ready", time.Since(began).Round(time.Millisecond))
	if r := got.Status.RestoredFrom; r == nil || r.Source != "shop" || r.ObjectStore != "copy-backup" ||
		r.TargetTime == nil || !r.TargetTime.Equal(&metav1.Time{Time: target}) {
		t.Errorf("status.restoredFrom = %+v", got.Status.RestoredFrom)
	}
	restored := dial(t, ns, "copy", "orders", "app-orders-rw", "copy-ca")
	var t1, t2 int
	if err := restored.QueryRow(t.Context(),
		"SELECT count(*) FILTER (WHERE label LIKE 't1-%'), count(*) FILTER (WHERE label LIKE 't2-%') FROM items").Scan(&t1, &t2); err != nil {
		t.Fatal(err)
	}
	if t1 != 1000 || t2 != 0 {
		t.Fatalf("restored to %s: %d t1 rows and %d t2 rows, want exactly the 1000 t1 rows", target.Format(time.RFC3339), t1, t2)
	}
	adoptRestoredOverIntruders(t, ns, "shop", "copy", 1000)

	// A target before the first backup cannot be recovered: Failed, with
	// CloudNativePG's phase and reason (its failed recovery Job) in the
	// message (restore_failed_test.go has more).
	early := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "early", Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Restore: &pgv1.RestoreSpec{Source: "shop", TargetTime: &metav1.Time{Time: b.Status.StartedAt.Add(-time.Hour)}}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), early, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	failed := waitReason(t, ns, "early", pgv1.ReasonRestoreFailed, 120*time.Second)
	if msg := readyMessage(failed); failed.Status.Phase != pgv1.PhaseFailed || !strings.Contains(msg, "early-1-full-recovery") {
		t.Fatalf("phase %s, message %q", failed.Status.Phase, msg)
	}
}

// The class's schedule becomes a plugin ScheduledBackup whose Backups run
// when it fires and complete with a real base backup.
func TestScheduledBackupsRun(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := backupClass(t, ns, "* * * * *") // every minute
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.Until(t, 100*time.Second, "a scheduled Backup completed", func(ctx context.Context) (bool, error) {
		list, err := pg.CNPGV1().Backups(ns).List(ctx, metav1.ListOptions{LabelSelector: "cnpg.io/scheduled-backup=shop-backup"})
		if err != nil {
			return false, err
		}
		for _, b := range list.Items {
			if b.Status.Phase == cnpgv1.BackupPhaseFailed {
				return false, fmt.Errorf("backup %s failed: %s", b.Name, b.Status.Error)
			}
			if b.Status.Phase == cnpgv1.BackupPhaseCompleted {
				return true, nil
			}
		}
		return false, nil
	})
	kit.Until(t, 30*time.Second, "lastScheduleTime and recovery window in status", func(ctx context.Context) (bool, error) {
		c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil || c.Status.BackupStatus == nil {
			return false, err
		}
		st := c.Status.BackupStatus
		return st.LastScheduleTime != nil && st.LastSuccessfulBackupTime != nil, nil
	})
}

// Retain with backups configured: the ObjectStore and the ScheduledBackup
// are released with the CNPG Cluster, which goes on archiving (a WAL switch
// after the PostgresCluster is gone lands in the archive), and a new
// PostgresCluster of the same name adopts them.
func TestRetainKeepsArchiving(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := backupClass(t, ns, "0 2 * * *")
	newCluster(t, ns, "kept", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyRetain)
	kit.WaitCluster(t, ns, "kept", pgv1.PhaseReady, 120*time.Second)
	kit.SwitchWAL(t, ns, "kept")
	if err := pg.PostgresV1alpha1().PostgresClusters(ns).Delete(t.Context(), "kept", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Gone(t, "PostgresCluster", func(ctx context.Context) error {
		_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "kept", metav1.GetOptions{})
		return err
	})
	kit.SettleGC(t, ns)
	store, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), "kept-backup", metav1.GetOptions{})
	if err != nil || len(store.OwnerReferences) != 0 || store.Labels["postgres.setpoint.dev/retained"] == "" {
		t.Fatalf("retained ObjectStore: %v, owners %v, labels %v", err, store.OwnerReferences, store.Labels)
	}
	sb, err := pg.CNPGV1().ScheduledBackups(ns).Get(t.Context(), "kept-backup", metav1.GetOptions{})
	if err != nil || len(sb.OwnerReferences) != 0 || sb.Labels["postgres.setpoint.dev/retained"] == "" {
		t.Fatalf("retained ScheduledBackup: %v, owners %v, labels %v", err, sb.OwnerReferences, sb.Labels)
	}
	kit.SwitchWAL(t, ns, "kept") // archived with no PostgresCluster around

	again := newCluster(t, ns, "kept", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "kept", pgv1.PhaseReady, 120*time.Second)
	kit.Until(t, 30*time.Second, "ObjectStore and ScheduledBackup adopted", func(ctx context.Context) (bool, error) {
		store, err := pg.BarmanCloudV1().ObjectStores(ns).Get(ctx, "kept-backup", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		sb, err := pg.CNPGV1().ScheduledBackups(ns).Get(ctx, "kept-backup", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		owned := func(m metav1.Object) bool {
			ref := metav1.GetControllerOf(m)
			return ref != nil && ref.UID == again.UID && m.GetLabels()["postgres.setpoint.dev/retained"] == ""
		}
		return owned(store) && owned(sb), nil
	})
	kit.SwitchWAL(t, ns, "kept")
}
