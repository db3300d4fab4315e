package cnpgsim_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

const barmanPlugin = "barman-cloud.cloudnative-pg.io"

// newObjectStore creates a barman-cloud ObjectStore; the stand-in keeps
// what goes there under its state directory (see archiveDirFor).
func newObjectStore(t *testing.T, ns, name, destination string) {
	t.Helper()
	store := &barmanv1.ObjectStore{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       barmanv1.ObjectStoreSpec{Configuration: barmanv1.BarmanObjectStoreConfiguration{DestinationPath: destination}},
	}
	if _, err := pg.BarmanCloudV1().ObjectStores(ns).Create(t.Context(), store, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatalf("create object store: %v", err)
	}
}

// archivedBy makes a Cluster archive WAL to the ObjectStore under
// serverName, as setpoint's provisioner configures it.
func archivedBy(store, serverName string) func(*cnpgv1.Cluster) {
	return func(c *cnpgv1.Cluster) {
		c.Spec.Plugins = []cnpgv1.PluginConfiguration{{
			Name: barmanPlugin, IsWALArchiver: ptr.To(true),
			Parameters: map[string]string{"barmanObjectName": store, "serverName": serverName},
		}}
	}
}

// archiveDirFor is the folder standing for <destination>/<serverName>.
func archiveDirFor(destination, serverName string) string {
	scheme, rest, _ := strings.Cut(destination, "://")
	return filepath.Join(append(append([]string{sim.Dir(), "objectstore", scheme}, strings.Split(rest, "/")...), serverName)...)
}

func waitArchived(t *testing.T, dir, wal string) {
	t.Helper()
	eventually(t, 60*time.Second, "WAL "+wal+" archived", func() error {
		_, err := os.Stat(filepath.Join(dir, "wals", wal))
		return err
	})
}

func newBackup(t *testing.T, ns, name, cluster string) {
	t.Helper()
	b := &cnpgv1.Backup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: cnpgv1.BackupSpec{
			Cluster: cnpgv1.LocalObjectReference{Name: cluster}, Method: cnpgv1.BackupMethodPlugin,
			PluginConfiguration: &cnpgv1.BackupPluginConfiguration{Name: barmanPlugin},
		},
	}
	if _, err := pg.CNPGV1().Backups(ns).Create(t.Context(), b, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatalf("create backup: %v", err)
	}
}

func waitBackup(t *testing.T, ns, name, phase string) *cnpgv1.Backup {
	t.Helper()
	var b *cnpgv1.Backup
	eventually(t, 2*time.Minute, "backup "+name+" "+phase, func() error {
		var err error
		if b, err = pg.CNPGV1().Backups(ns).Get(t.Context(), name, metav1.GetOptions{}); err != nil {
			return err
		}
		if b.Status.Phase != phase {
			return fmt.Errorf("phase %q (error %q)", b.Status.Phase, b.Status.Error)
		}
		return nil
	})
	return b
}

// A base backup and the archived WAL restore a new Cluster to a point in
// time: rows committed before the target are there, rows after are not;
// the restored Cluster promotes, is healthy and archives to its own
// folder. A target before the first backup cannot be recovered.
func TestBackupAndPointInTimeRecovery(t *testing.T) {
	ns := newNamespace(t)
	const dest = "s3://backups/pitr"
	newObjectStore(t, ns, "store", dest)
	newCluster(t, ns, "src", archivedBy("store", "src"))
	waitHealthy(t, ns, "src")
	src := archiveDirFor(dest, "src")
	run := func(sql string) {
		t.Helper()
		superExec(t, ns, "src", sql)
	}
	run("CREATE TABLE rows (id serial PRIMARY KEY, label text NOT NULL)")

	began := time.Now()
	newBackup(t, ns, "src-1", "src")
	b := waitBackup(t, ns, "src-1", cnpgv1.BackupPhaseCompleted)
	t.Logf("backup of an almost empty database took %s (status %s → %s)", time.Since(began).Round(time.Millisecond),
		b.Status.StartedAt.Format(time.RFC3339), b.Status.StoppedAt.Format(time.RFC3339))
	st := b.Status
	if st.StartedAt == nil || st.StoppedAt == nil || st.BeginWal == "" || st.EndWal == "" || st.BackupID == "" ||
		st.ServerName != "" || st.DestinationPath != "" || st.Method != cnpgv1.BackupMethodPlugin || st.MajorVersion != 15 {
		t.Fatalf("backup status incomplete: %+v", st)
	}
	// The Cluster's conditions as CNPG's plugin backup and status
	// reconciler leave them (test/parity compares them with real CNPG's).
	eventually(t, 10*time.Second, "Cluster conditions after the backup", func() error {
		c, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "src", metav1.GetOptions{})
		if err != nil {
			return err
		}
		for typ, reason := range map[string]string{"LastBackupSucceeded": "LastBackupSucceeded", "ConsistentSystemID": "Unique"} {
			if cond := meta.FindStatusCondition(c.Status.Conditions, typ); cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != reason {
				return fmt.Errorf("condition %s = %+v", typ, cond)
			}
		}
		return nil
	})
	waitArchived(t, src, st.EndWal)
	if _, err := os.Stat(filepath.Join(src, "base", st.BackupID, "data", "PG_VERSION")); err != nil {
		t.Fatalf("base backup not in the archive folder: %v", err)
	}
	eventually(t, 10*time.Second, "recovery window", func() error {
		store, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), "store", metav1.GetOptions{})
		if err != nil {
			return err
		}
		w, ok := store.Status.ServerRecoveryWindow["src"]
		if !ok || w.FirstRecoverabilityPoint == nil || w.LastSuccessfulBackupTime == nil ||
			!w.FirstRecoverabilityPoint.Equal(st.StoppedAt) {
			return fmt.Errorf("serverRecoveryWindow = %+v, backup stopped at %s", store.Status.ServerRecoveryWindow, st.StoppedAt)
		}
		return nil
	})

	// Rows at t1, the target, rows at t2; then the WAL holding t2 is
	// archived (a segment switch), so replay finds a commit past the target.
	run("INSERT INTO rows (label) VALUES ('t1-a'), ('t1-b')")
	target := superQuery[time.Time](t, ns, "src", "postgres", "SELECT clock_timestamp()")
	time.Sleep(50 * time.Millisecond) // commit timestamps are microseconds apart otherwise
	run("INSERT INTO rows (label) VALUES ('t2')")
	last := superQuery[string](t, ns, "src", "postgres", "SELECT pg_walfile_name(pg_switch_wal())")
	waitArchived(t, src, last)

	restore := func(name, targetTime string) func(*cnpgv1.Cluster) {
		return func(c *cnpgv1.Cluster) {
			archivedBy("store", name)(c)
			c.Spec.Bootstrap = &cnpgv1.BootstrapConfiguration{Recovery: &cnpgv1.BootstrapRecovery{
				Source: "origin", RecoveryTarget: &cnpgv1.RecoveryTarget{TargetTime: targetTime},
			}}
			c.Spec.ExternalClusters = []cnpgv1.ExternalCluster{{Name: "origin", PluginConfiguration: &cnpgv1.PluginConfiguration{
				Name: barmanPlugin, Parameters: map[string]string{"barmanObjectName": "store", "serverName": "src"},
			}}}
		}
	}
	t.Run("point in time", func(t *testing.T) {
		began := time.Now()
		newCluster(t, ns, "pitr", restore("pitr", target.UTC().Format(time.RFC3339Nano)))
		eventually(t, 2*time.Minute, "restored cluster healthy", func() error {
			c := getCluster(t, ns, "pitr")
			if c.Status.Phase != "Cluster in healthy state" {
				return fmt.Errorf("phase %q (%s)", c.Status.Phase, c.Status.PhaseReason)
			}
			return nil
		})
		t.Logf("recovery to %s took %s", target.UTC().Format(time.RFC3339Nano), time.Since(began).Round(time.Millisecond))
		got := superQuery[string](t, ns, "pitr", "postgres", "SELECT string_agg(label, ',' ORDER BY id) FROM rows")
		if got != "t1-a,t1-b" {
			t.Fatalf("restored rows = %q, want exactly the t1 rows", got)
		}
		if inRecovery := superQuery[bool](t, ns, "pitr", "postgres", "SELECT pg_is_in_recovery()"); inRecovery {
			t.Fatal("restored server still in recovery")
		}
		// Promotion starts timeline 2, whose history file the restored
		// Cluster archives to its own folder, not the source's.
		waitArchived(t, archiveDirFor(dest, "pitr"), "00000002.history")
		if _, err := os.Stat(filepath.Join(src, "wals", "00000002.history")); err == nil {
			t.Fatal("the restored cluster archived into the source's folder")
		}
	})
	t.Run("target beyond the archive", func(t *testing.T) {
		// Every archived change is replayed without reaching the target:
		// Postgres stops, the recovery Job fails, and its log says why.
		late := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		newCluster(t, ns, "late", restore("late", late))
		eventually(t, 2*time.Minute, "recovery failed", func() error {
			return recoveryJobFailed(getCluster(t, ns, "late"))
		})
		if log := sim.RecoveryLog(ns, "late"); !strings.Contains(log, "recovery ended before configured recovery target was reached") {
			t.Fatalf("recovery Job log = %q", log)
		}
		expectStatusStill(t, ns, "late")
	})
	t.Run("target before the first backup", func(t *testing.T) {
		early := st.StartedAt.Add(-time.Hour).UTC().Format(time.RFC3339)
		newCluster(t, ns, "early", restore("early", early))
		if err := recoveryJobFailed(waitPhase(t, ns, "early", "Cluster is unrecoverable and needs manual intervention")); err != nil {
			t.Fatal(err)
		}
		if log := sim.RecoveryLog(ns, "early"); !strings.Contains(log, "no target backup found") {
			t.Fatalf("recovery Job log = %q", log)
		}
		expectStatusStill(t, ns, "early")
	})
}

// A plugin ScheduledBackup with immediate creates a Backup at once, then
// one each time the schedule fires; each takes a real base backup.
func TestScheduledBackupCreatesBackups(t *testing.T) {
	ns := newNamespace(t)
	newObjectStore(t, ns, "store", "s3://backups/scheduled")
	newCluster(t, ns, "db", archivedBy("store", "db"))
	waitHealthy(t, ns, "db")
	sb := &cnpgv1.ScheduledBackup{
		ObjectMeta: metav1.ObjectMeta{Name: "db-backup", Namespace: ns},
		Spec: cnpgv1.ScheduledBackupSpec{
			Schedule: "*/10 * * * * *", Cluster: cnpgv1.LocalObjectReference{Name: "db"},
			Method: cnpgv1.BackupMethodPlugin, PluginConfiguration: &cnpgv1.BackupPluginConfiguration{Name: barmanPlugin},
			Immediate: ptr.To(true), BackupOwnerReference: "self",
		},
	}
	created, err := pg.CNPGV1().ScheduledBackups(ns).Create(t.Context(), sb, metav1.CreateOptions{FieldValidation: "Strict"})
	if err != nil {
		t.Fatal(err)
	}
	var immediate, scheduled int
	eventually(t, 90*time.Second, "an immediate and a scheduled backup completed", func() error {
		list, err := pg.CNPGV1().Backups(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "cnpg.io/scheduled-backup=db-backup"})
		if err != nil {
			return err
		}
		immediate, scheduled = 0, 0
		for _, b := range list.Items {
			if b.Status.Phase == cnpgv1.BackupPhaseFailed {
				return fmt.Errorf("backup %s failed: %s", b.Name, b.Status.Error)
			}
			if b.Status.Phase != cnpgv1.BackupPhaseCompleted {
				continue
			}
			if ref := metav1.GetControllerOf(&b); ref == nil || ref.UID != created.UID {
				return fmt.Errorf("backup %s not owned by its schedule: %v", b.Name, b.OwnerReferences)
			}
			if b.Labels["cnpg.io/immediateBackup"] == "true" {
				immediate++
			} else {
				scheduled++
			}
		}
		if immediate != 1 || scheduled < 1 {
			return fmt.Errorf("%d immediate, %d scheduled completed backups", immediate, scheduled)
		}
		return nil
	})
	got, err := pg.CNPGV1().ScheduledBackups(ns).Get(t.Context(), "db-backup", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.LastScheduleTime == nil || got.Status.NextScheduleTime == nil {
		t.Fatalf("schedule status = %+v", got.Status)
	}
}

// superExec runs one statement as the superuser of a Cluster made by
// newCluster.
func superExec(t *testing.T, ns, cluster, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := dial(ctx, readHostMap(t), ns, cluster+"-rw", cluster, "postgres", "su-"+cluster, "postgres")
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Shared-backend mode takes no backups (one server holds every Cluster)
// and says so in the Backup's status.
func TestSharedBackendBackupFails(t *testing.T) {
	ns := newNamespace(t)
	b := &cnpgv1.Backup{
		ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: ns, Labels: map[string]string{sharedLabel: "true"}},
		Spec: cnpgv1.BackupSpec{
			Cluster: cnpgv1.LocalObjectReference{Name: "any"}, Method: cnpgv1.BackupMethodPlugin,
			PluginConfiguration: &cnpgv1.BackupPluginConfiguration{Name: barmanPlugin},
		},
	}
	if _, err := pg.CNPGV1().Backups(ns).Create(t.Context(), b, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatal(err)
	}
	got := waitBackup(t, ns, "b", cnpgv1.BackupPhaseFailed)
	if !strings.Contains(got.Status.Error, "shared-backend mode takes no backups") {
		t.Fatalf("error = %q", got.Status.Error)
	}
}
