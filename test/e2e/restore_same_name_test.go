package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A cluster deleted with Delete is re-created under the same name from its
// own backups: the data is back (the PostgresDatabase that stayed finds its
// database and roles, which carry its marker), and the new cluster
// archives under a serverName of its own — its WAL lands there, never in
// the source's folder — and reports the recovery window of that folder.
func TestRestoreUnderTheSameName(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s")
	class := backupClass(t, ns, "")
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	admin := connectAs(t, ns, "app-orders-config", "app-orders-admin")
	execSQL(t, admin, "CREATE TABLE items (id serial PRIMARY KEY, label text NOT NULL)")
	execSQL(t, admin, "INSERT INTO items (label) SELECT 'before-' || g FROM generate_series(1, 100) AS g")
	first := kit.WaitBackupCompleted(t, ns, kit.RequestBackup(t, ns, "shop", "before-delete"), 2*time.Minute)
	kit.SwitchWAL(t, ns, "shop")
	kit.DeleteCluster(t, ns, "shop")

	began := time.Now()
	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Restore: &pgv1.RestoreSpec{Source: "shop"}},
	}
	created, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 180*time.Second)
	t.Logf("recovery under the same name: %s from create to Ready", time.Since(began).Round(time.Millisecond))
	serverName := "shop-" + string(created.UID)[:8]
	if st := got.Status.BackupStatus; st == nil || st.ServerName != serverName {
		t.Fatalf("status.backupStatus = %+v, want serverName %s", got.Status.BackupStatus, serverName)
	}
	if r := got.Status.RestoredFrom; r == nil || r.Source != "shop" {
		t.Errorf("status.restoredFrom = %+v", r)
	}

	// The PostgresDatabase that stayed is served again, with its own
	// Secrets (the restored roles are marked for it).
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	rw := dial(t, ns, "shop", "orders", "app-orders-rw", "shop-ca")
	if n := queryString(t, rw, "SELECT count(*)::text FROM items WHERE label LIKE 'before-%'"); n != "100" {
		t.Fatalf("restored rows: %s, want 100", n)
	}
	execSQL(t, rw, "INSERT INTO items (label) VALUES ('after restore')")

	// WAL goes to the new folder, and not to the source's.
	su := dial(t, ns, "shop", "postgres", "shop-superuser", "shop-ca")
	wal := queryString(t, su, "SELECT pg_walfile_name(pg_switch_wal())")
	kit.Until(t, 60*time.Second, "WAL "+wal+" archived under "+serverName, func(context.Context) (bool, error) {
		_, err := os.Stat(filepath.Join(walFolder(ns, serverName), wal))
		return err == nil, nil
	})
	if _, err := os.Stat(filepath.Join(walFolder(ns, "shop"), wal)); !os.IsNotExist(err) {
		t.Errorf("WAL %s of the re-created cluster is in the source's folder too (%v)", wal, err)
	}

	// A backup of the new cluster goes to its folder, and status shows that
	// folder's recovery window (which starts with it, not with the source's
	// backup).
	b := kit.WaitBackupCompleted(t, ns, kit.RequestBackup(t, ns, "shop", "after-restore"), 2*time.Minute)
	if _, err := os.Stat(filepath.Join(filepath.Dir(walFolder(ns, serverName)), "base", b.Status.BackupID)); err != nil {
		t.Errorf("base backup %s not under %s: %v", b.Status.BackupID, serverName, err)
	}
	kit.Until(t, 30*time.Second, "the new folder's recovery window in status", func(ctx context.Context) (bool, error) {
		c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil || c.Status.BackupStatus == nil {
			return false, err
		}
		st := c.Status.BackupStatus
		return st.FirstRecoverabilityPoint != nil && st.LastSuccessfulBackupTime != nil &&
			st.LastSuccessfulBackupTime.Equal(b.Status.StoppedAt) && st.FirstRecoverabilityPoint.Equal(b.Status.StoppedAt), nil
	})
	if b.Status.StoppedAt.Equal(first.Status.StoppedAt) {
		t.Fatal("the two backups report the same end time: the window check cannot tell the folders apart")
	}
}
