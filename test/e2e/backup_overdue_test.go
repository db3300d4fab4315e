package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A schedule whose backups hang goes overdue, for real: the stand-in's
// StallBackups keeps each Backup running, as one stuck on its object
// store stays, and CNPG's ScheduledBackup takes no other while one of its
// own runs. No backup fails and archiving works, so only the age of the
// last successful backup tells: once the schedule's first firing after it
// plus the slack (the period, at least 5 minutes) has passed, BackupHealthy
// turns False BackupOverdue naming the backup and the schedule, with one
// BackupsFailing Event, while the cluster stays Ready and the last-backup
// gauge keeps that backup's time. The hung backup finishing clears it,
// with one BackupsRecovered Event and the gauge at the new backup.
//
// It takes about six minutes, the slack's floor, on the real clock: the
// operator judges with its own (the unit tests of backup_health.go move
// a fake one), and a faster proof would have to change that slack.
func TestBackupOverdueWhileScheduledBackupsHang(t *testing.T) {
	ns, op := backupHealthCluster(t, "* * * * *") // every minute
	waitScheduledBackup(t, ns, "a scheduled Backup completed", 100*time.Second, func(b cnpgv1.Backup) bool {
		return b.Status.Phase == cnpgv1.BackupPhaseCompleted
	})
	waitBackupHealth(t, ns, pgv1.ReasonBackupsHealthy, "", 60*time.Second)

	sim.StallBackups(ns, "shop")
	t.Cleanup(func() { sim.ResumeBackups(ns, "shop") })
	stuck := waitScheduledBackup(t, ns, "a scheduled Backup hanging", 100*time.Second, func(b cnpgv1.Backup) bool {
		return b.Status.Phase == cnpgv1.BackupPhaseRunning
	})

	t.Run("no backup since the slack: BackupOverdue, still Ready, one Event", func(t *testing.T) {
		c := waitBackupHealth(t, ns, pgv1.ReasonBackupOverdue, `the schedule "* * * * *" fired at`, 8*time.Minute)
		if c.Status.Phase != pgv1.PhaseReady || !meta.IsStatusConditionTrue(c.Status.Conditions, pgv1.ConditionReady) {
			t.Errorf("an overdue backup changed the phase: %s", c.Status.Phase)
		}
		last := getBackupStatus(t, ns).LastSuccessfulBackupTime
		if last == nil {
			t.Fatal("overdue with no last successful backup in backupStatus")
		}
		msg := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionBackupHealthy).Message
		if want := "since the last successful backup (" + last.UTC().Format(time.RFC3339) + ")"; !strings.Contains(msg, want) {
			t.Errorf("BackupOverdue says %q, want it to name the last successful backup: %q", msg, want)
		}
		if age := time.Since(last.Time); age < 5*time.Minute {
			t.Errorf("overdue %s after the last successful backup, before the slack's 5 minutes", age.Round(time.Second))
		}
		noOtherBackup(t, ns, stuck)
		kit.WaitEvents(t, ns, "shop", pgv1.EventBackupsFailing, 1, 20*time.Second)
		if msg := eventMessages(t, ns, pgv1.EventBackupsFailing); !strings.HasPrefix(msg[0], pgv1.ReasonBackupOverdue+": ") {
			t.Errorf("%s Event %q, want it to name %s", pgv1.EventBackupsFailing, msg[0], pgv1.ReasonBackupOverdue)
		}
		waitGauge(t, op, ns, "setpoint_cluster_wal_archiving_ok", 1)
		waitGauge(t, op, ns, "setpoint_cluster_last_successful_backup_timestamp_seconds", float64(last.Unix()))
		// The alert, run by Prometheus' engine on the operator's scrapes.
		firing := alertsOn(t, op)
		if !slices.ContainsFunc(firing["SetpointBackupOverdue"], func(ls map[string]string) bool {
			return ls["namespace"] == ns && ls["postgrescluster"] == "shop"
		}) {
			t.Errorf("SetpointBackupOverdue does not fire for the overdue cluster: %v", firing)
		}
		if _, ok := firing["SetpointWALArchivingFailing"]; ok {
			t.Errorf("SetpointWALArchivingFailing fires while archiving works: %v", firing)
		}
	})

	t.Run("the hung backup finishes: healthy again", func(t *testing.T) {
		before := getBackupStatus(t, ns).LastSuccessfulBackupTime
		if before == nil {
			t.Fatal("no last successful backup in backupStatus")
		}
		sim.ResumeBackups(ns, "shop")
		kit.WaitBackupCompleted(t, ns, stuck.Name, 2*time.Minute)
		waitBackupHealth(t, ns, pgv1.ReasonBackupsHealthy, "", 60*time.Second)
		kit.WaitEvents(t, ns, "shop", pgv1.EventBackupsRecovered, 1, 20*time.Second)
		var after *metav1.Time
		kit.Until(t, 60*time.Second, "a later last successful backup in backupStatus", func(ctx context.Context) (bool, error) {
			after = getBackupStatus(t, ns).LastSuccessfulBackupTime
			return after != nil && after.After(before.Time), nil
		})
		waitGauge(t, op, ns, "setpoint_cluster_last_successful_backup_timestamp_seconds", float64(after.Unix()))
	})
}

// waitScheduledBackup waits for a Backup of shop's schedule that ok
// accepts, and fails at once on a failed one (nothing here should fail).
func waitScheduledBackup(t *testing.T, ns, what string, timeout time.Duration, ok func(cnpgv1.Backup) bool) cnpgv1.Backup {
	t.Helper()
	var found cnpgv1.Backup
	kit.Until(t, timeout, what, func(ctx context.Context) (bool, error) {
		for _, b := range scheduledBackups(t, ns) {
			if b.Status.Phase == cnpgv1.BackupPhaseFailed {
				return false, fmt.Errorf("backup %s failed: %s", b.Name, b.Status.Error)
			}
			if ok(b) {
				found = b
				return true, nil
			}
		}
		return false, nil
	})
	return found
}

// noOtherBackup checks that the schedule took no backup while stuck ran
// (CNPG's concurrency rule), the one thing that leaves it overdue rather
// than failed.
func noOtherBackup(t *testing.T, ns string, stuck cnpgv1.Backup) {
	t.Helper()
	for _, b := range scheduledBackups(t, ns) {
		switch {
		case b.Name == stuck.Name && b.Status.Phase != cnpgv1.BackupPhaseRunning:
			t.Errorf("the hung backup %s is %s, want it still running", b.Name, b.Status.Phase)
		case b.Name != stuck.Name && !b.CreationTimestamp.Before(&stuck.CreationTimestamp):
			t.Errorf("backup %s (%s) was taken while %s ran", b.Name, b.Status.Phase, stuck.Name)
		case b.Status.Phase == cnpgv1.BackupPhaseFailed:
			t.Errorf("backup %s failed: %s", b.Name, b.Status.Error)
		}
	}
}

func scheduledBackups(t *testing.T, ns string) []cnpgv1.Backup {
	t.Helper()
	list, err := pg.CNPGV1().Backups(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "cnpg.io/scheduled-backup=shop-backup"})
	if err != nil {
		t.Fatalf("list the scheduled Backups: %v", err)
	}
	return list.Items
}

func getBackupStatus(t *testing.T, ns string) pgv1.BackupStatus {
	t.Helper()
	c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Status.BackupStatus == nil {
		return pgv1.BackupStatus{}
	}
	return *c.Status.BackupStatus
}

// eventMessages are the messages of the cluster's Events of reason.
func eventMessages(t *testing.T, ns, reason string) []string {
	t.Helper()
	evs, err := kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=shop,reason=" + reason})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs.Items {
		out = append(out, e.Message)
	}
	return out
}
