package cnpgsim_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// A backup that hangs stops its schedule, as in CNPG: while a Backup of
// its own runs, the ScheduledBackup takes no other and writes no status,
// so nothing fails (LastBackupSucceeded stays "BackupStarted") and only
// the last backup's age can tell. The hung backup finishing, the schedule
// fires again at its next look (CNPG's minute) and that backup completes.
func TestHungBackupStopsItsSchedule(t *testing.T) {
	ns := newNamespace(t)
	newObjectStore(t, ns, "store", "s3://backups/hung")
	newCluster(t, ns, "db", archivedBy("store", "db"))
	waitHealthy(t, ns, "db")
	sim.StallBackups(ns, "db")
	t.Cleanup(func() { sim.ResumeBackups(ns, "db") })
	sb := &cnpgv1.ScheduledBackup{
		ObjectMeta: metav1.ObjectMeta{Name: "db-backup", Namespace: ns},
		Spec: cnpgv1.ScheduledBackupSpec{
			Schedule: "* * * * * *", Cluster: cnpgv1.LocalObjectReference{Name: "db"},
			Method: cnpgv1.BackupMethodPlugin, PluginConfiguration: &cnpgv1.BackupPluginConfiguration{Name: barmanPlugin},
			Immediate: ptr.To(true),
		},
	}
	if _, err := pg.CNPGV1().ScheduledBackups(ns).Create(t.Context(), sb, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatal(err)
	}
	var hung cnpgv1.Backup
	eventually(t, 30*time.Second, "the immediate backup hanging", func() error {
		list := scheduleBackups(t, ns)
		if len(list) != 1 || list[0].Status.Phase != cnpgv1.BackupPhaseRunning {
			return fmt.Errorf("%d backups, want one running", len(list))
		}
		if getScheduledBackup(t, ns).Status.NextScheduleTime == nil {
			return fmt.Errorf("the schedule's status is not written yet")
		}
		// The Cluster's condition is its own status write, which may
		// come after the Backup's: waited for, not read once.
		if c := meta.FindStatusCondition(getCluster(t, ns, "db").Status.Conditions, "LastBackupSucceeded"); c == nil || c.Reason != "BackupStarted" {
			return fmt.Errorf("LastBackupSucceeded = %+v, want CNPG's BackupStarted while the backup runs", c)
		}
		hung = list[0]
		return nil
	})

	// Absence, proved against the schedule's own clock: three firings go
	// by (it fires every second) and each look finds the one Backup still
	// alone and the status as it was.
	before := getScheduledBackup(t, ns).Status
	missed := before.NextScheduleTime.Add(3 * time.Second)
	eventually(t, 30*time.Second, "three firings missed", func() error {
		if list := scheduleBackups(t, ns); len(list) != 1 {
			t.Fatalf("%d backups while %s hung, want it alone", len(list), hung.Name)
		}
		if st := getScheduledBackup(t, ns).Status; !st.LastScheduleTime.Equal(before.LastScheduleTime) {
			t.Fatalf("the schedule fired at %s while %s hung", st.LastScheduleTime, hung.Name)
		}
		if time.Now().Before(missed) {
			return fmt.Errorf("not yet past %s", missed)
		}
		return nil
	})

	sim.ResumeBackups(ns, "db")
	waitBackup(t, ns, hung.Name, cnpgv1.BackupPhaseCompleted)
	eventually(t, 90*time.Second, "the schedule firing again", func() error {
		for _, b := range scheduleBackups(t, ns) {
			if b.Name != hung.Name && b.Status.Phase == cnpgv1.BackupPhaseCompleted {
				return nil
			}
		}
		return fmt.Errorf("no backup after %s completed", hung.Name)
	})
}

func scheduleBackups(t *testing.T, ns string) []cnpgv1.Backup {
	t.Helper()
	list, err := pg.CNPGV1().Backups(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "cnpg.io/scheduled-backup=db-backup"})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func getScheduledBackup(t *testing.T, ns string) *cnpgv1.ScheduledBackup {
	t.Helper()
	sb, err := pg.CNPGV1().ScheduledBackups(ns).Get(t.Context(), "db-backup", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sb
}
