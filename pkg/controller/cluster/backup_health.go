package cluster

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// CloudNativePG's conditions on its Cluster that speak of backups
// (api/v1/cluster_types.go): its instance manager sets ContinuousArchiving
// after every archive_command, and LastBackupSucceeded when a backup
// starts, succeeds or fails.
const (
	cnpgContinuousArchiving = "ContinuousArchiving"
	cnpgLastBackupSucceeded = "LastBackupSucceeded"
	// CNPG's reason of a failed backup is spelled as ours.
	cnpgLastBackupFailed = pgv1.ReasonLastBackupFailed
)

// backupInputs are what the backup-health reading looks at, all from the
// pass's snapshot.
type backupInputs struct {
	// archiving and lastBackup are CNPG's conditions, nil when absent.
	archiving, lastBackup *metav1.Condition
	// window is the plugin's recovery window of the cluster's serverName;
	// nil when the ObjectStore reports none.
	window *barmanv1.RecoveryWindow
	// schedule is the user's five-field cron, "" without a schedule to the
	// object store; scheduledSince is when its ScheduledBackup was made,
	// the reference for a schedule that has not backed up yet.
	schedule       string
	scheduledSince *metav1.Time
}

// backupVerdict is the reading: the BackupHealthy condition, whether
// archiving works (nil: not known yet), and when to look again because
// of time alone (a backup becoming overdue; 0: never).
type backupVerdict struct {
	status          metav1.ConditionStatus
	reason, message string
	archivingOK     *bool
	recheck         time.Duration
}

// Overdue's slack is the schedule's period, within these bounds: a backup
// takes time after its firing, and an hourly schedule should not wait a
// day to be called overdue.
const (
	minOverdueSlack = 5 * time.Minute
	maxOverdueSlack = time.Hour
)

// judgeBackups reads backup health. The first cause that holds wins:
// archiving failing (the recovery window stops at the last archived WAL),
// then the last base backup failed, then overdue; a failure outranks a
// state not known yet. Pure, with the time passed in, so the whole
// decision is table-tested.
func judgeBackups(in backupInputs, now time.Time) backupVerdict {
	v := backupVerdict{}
	if a := in.archiving; a != nil && a.Status != metav1.ConditionUnknown {
		ok := a.Status == metav1.ConditionTrue
		v.archivingOK = &ok
	}
	overdue, recheck := overdueSince(in, now)
	v.recheck = recheck
	switch {
	case v.archivingOK != nil && !*v.archivingOK:
		v.status, v.reason = metav1.ConditionFalse, pgv1.ReasonArchivingFailing
		v.message = fmt.Sprintf("CloudNativePG reports WAL archiving failing: %s", in.archiving.Message)
	case lastBackupFailed(in) != "":
		v.status, v.reason, v.message = metav1.ConditionFalse, pgv1.ReasonLastBackupFailed, lastBackupFailed(in)
	case overdue != "":
		v.status, v.reason, v.message = metav1.ConditionFalse, pgv1.ReasonBackupOverdue, overdue
	case v.archivingOK == nil:
		v.status, v.reason, v.message = metav1.ConditionUnknown, pgv1.ReasonArchivingPending, "no WAL file archived yet"
	default:
		v.status, v.reason, v.message = metav1.ConditionTrue, pgv1.ReasonBackupsHealthy, "WAL archiving works and no base backup is failed or overdue"
	}
	return v
}

// lastBackupFailed says why the last base backup counts as failed, or "".
// CNPG's condition quotes the failure; the plugin's recovery window only
// dates it, and is read too because CNPG's condition is one per Cluster,
// written by whichever backup ended last.
func lastBackupFailed(in backupInputs) string {
	if c := in.lastBackup; c != nil && c.Status == metav1.ConditionFalse && c.Reason == cnpgLastBackupFailed {
		return fmt.Sprintf("CloudNativePG reports the last backup failed: %s", c.Message)
	}
	w := in.window
	if w == nil || w.LastFailedBackupTime == nil {
		return ""
	}
	if ok := w.LastSuccessfulBackupTime; ok != nil && !w.LastFailedBackupTime.After(ok.Time) {
		return ""
	}
	return fmt.Sprintf("the barman-cloud plugin reports a failed backup at %s, after the last successful one (%s)",
		w.LastFailedBackupTime.UTC().Format(time.RFC3339), formatTimeOrNone(w.LastSuccessfulBackupTime))
}

// overdueSince says why a backup is overdue, or "" with the time until it
// would be: the schedule fired after the last successful backup (or,
// before the first, after the ScheduledBackup was made) more than the
// slack ago. Firings rather than a fixed period, so a schedule of
// weekdays only is not overdue on a Sunday.
func overdueSince(in backupInputs, now time.Time) (string, time.Duration) {
	if in.schedule == "" {
		return "", 0
	}
	sched, err := cron.ParseStandard(in.schedule)
	if err != nil {
		return "", 0 // CNPG refuses it too: ScheduledBackupInvalid says so
	}
	ref, what := in.scheduledSince, "the schedule was set up"
	if w := in.window; w != nil && w.LastSuccessfulBackupTime != nil {
		ref, what = w.LastSuccessfulBackupTime, "the last successful backup"
	}
	if ref == nil {
		return "", 0
	}
	fired := sched.Next(ref.Time)
	if fired.IsZero() {
		return "", 0 // never fires
	}
	deadline := fired.Add(overdueSlack(sched, fired))
	if now.Before(deadline) {
		return "", deadline.Sub(now)
	}
	return fmt.Sprintf("no base backup succeeded since %s (%s): the schedule %q fired at %s",
		what, ref.UTC().Format(time.RFC3339), in.schedule, fired.UTC().Format(time.RFC3339)), 0
}

// overdueSlack is the schedule's period after fired, bounded.
func overdueSlack(sched cron.Schedule, fired time.Time) time.Duration {
	slack := sched.Next(fired).Sub(fired)
	return min(max(slack, minOverdueSlack), maxOverdueSlack)
}

func formatTimeOrNone(t *metav1.Time) string {
	if t == nil {
		return "none"
	}
	return t.UTC().Format(time.RFC3339)
}
