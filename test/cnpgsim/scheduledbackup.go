package cnpgsim

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// cnpgSchedule parses schedules as CNPG does: six fields, seconds first.
var cnpgSchedule = cron.NewParser(cron.Second | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// syncScheduledBackup reports when the next backup runs and, for plugin
// schedules outside shared-backend mode, creates the Backups: one at once
// when immediate is set and none was scheduled yet, then one each time the
// schedule fires. Volume-snapshot schedules only report the times.
func (s *Simulator) syncScheduledBackup(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	if _, err := s.backups.ScheduledBackups(key.Namespace).Get(key.Name); apierrors.IsNotFound(err) {
		return 0, nil
	}
	// Decisions rest on the status we wrote last, which the cache may not
	// have yet: read it live, or an immediate backup would run twice.
	sb, err := s.cnpg.CNPGV1().ScheduledBackups(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("get scheduled backup: %w", err)
	}
	if sb.DeletionTimestamp != nil || (sb.Spec.Suspend != nil && *sb.Spec.Suspend) {
		return 0, nil
	}
	// As CNPG: while a Backup of this schedule runs, no firing and no
	// status write.
	running, err := s.runningChild(sb)
	if err != nil {
		return 0, err
	}
	if running != nil {
		klog.FromContext(ctx).V(2).Info("A backup of the schedule is still running", "scheduledBackup", key, "backup", klog.KObj(running), "phase", running.Status.Phase)
		return childBackupRetry, nil
	}
	want := sb.Status.DeepCopy()
	var requeue time.Duration
	schedule, err := cnpgSchedule.Parse(sb.Spec.Schedule)
	if err != nil {
		// CNPG's webhook refuses the object; when it was bypassed, CNPG's
		// admission guard re-runs the validation in the reconcile loop,
		// records this sanitised summary (field paths, never values) in
		// status.error and stops reconciling the object
		// (internal/webhook/guard/guard.go in CNPG 1.30).
		klog.FromContext(ctx).Info("Invalid ScheduledBackup schedule", "scheduledBackup", key, "schedule", sb.Spec.Schedule, "err", err)
		want.Error = admissionError("spec.schedule")
	} else {
		want.Error = ""
		now := time.Now().UTC().Truncate(time.Second)
		// Keep the last check while the schedule is unchanged, so the
		// status is written once and not on every sync.
		check := now
		unchanged := false
		if last := sb.Status.LastCheckTime; last != nil && sb.Status.NextScheduleTime != nil &&
			schedule.Next(last.Time).Unix() == sb.Status.NextScheduleTime.Unix() {
			check, unchanged = last.Time, true
		}
		if s.schedulesBackups(sb) {
			due := unchanged && !now.Before(sb.Status.NextScheduleTime.Time)
			immediate := sb.Spec.Immediate != nil && *sb.Spec.Immediate && sb.Status.LastScheduleTime == nil
			if due || immediate {
				if err := s.createScheduledBackup(ctx, sb, now, immediate && !due); err != nil {
					return 0, err
				}
				want.LastScheduleTime = &metav1.Time{Time: now}
				check = now
			}
		}
		check = check.Truncate(time.Second)
		next := schedule.Next(check)
		want.LastCheckTime = &metav1.Time{Time: check}
		want.NextScheduleTime = &metav1.Time{Time: next}
		if s.schedulesBackups(sb) {
			requeue = max(time.Until(next), 0) + 10*time.Millisecond
		}
	}
	if want.Error == sb.Status.Error && timeEqual(want.LastCheckTime, sb.Status.LastCheckTime) &&
		timeEqual(want.NextScheduleTime, sb.Status.NextScheduleTime) && timeEqual(want.LastScheduleTime, sb.Status.LastScheduleTime) {
		return requeue, nil
	}
	next := sb.DeepCopy()
	next.Status = *want
	if _, err := s.cnpg.CNPGV1().ScheduledBackups(sb.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: s.opts.FieldManager}); err != nil {
		return 0, fmt.Errorf("update scheduled backup status: %w", err)
	}
	return requeue, nil
}

// schedulesBackups says whether the stand-in creates Backups for sb: only
// barman-cloud plugin schedules, and not in shared-backend mode (see
// syncBackup).
func (s *Simulator) schedulesBackups(sb *cnpgv1.ScheduledBackup) bool {
	return !s.opts.SharedBackend && sb.Spec.Method == cnpgv1.BackupMethodPlugin
}

// createScheduledBackup creates the Backup CNPG would: named
// <schedule>-<YYYYMMDDhhmmss>, labelled with its cluster and schedule,
// owned as backupOwnerReference says (none, self or cluster).
func (s *Simulator) createScheduledBackup(ctx context.Context, sb *cnpgv1.ScheduledBackup, now time.Time, immediate bool) error {
	b := &cnpgv1.Backup{
		ObjectMeta: metav1.ObjectMeta{
			Name:      sb.Name + "-" + now.Format("20060102150405"),
			Namespace: sb.Namespace,
			Labels: map[string]string{
				"cnpg.io/cluster":    sb.Spec.Cluster.Name,
				scheduledBackupLabel: sb.Name,
			},
		},
		Spec: cnpgv1.BackupSpec{
			Cluster:             sb.Spec.Cluster,
			Method:              sb.Spec.Method,
			PluginConfiguration: sb.Spec.PluginConfiguration.DeepCopy(),
			Target:              sb.Spec.Target,
		},
	}
	if immediate {
		b.Labels["cnpg.io/immediateBackup"] = "true"
	}
	switch sb.Spec.BackupOwnerReference {
	case "self":
		b.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(sb, cnpgv1.SchemeGroupVersion.WithKind("ScheduledBackup"))}
	case "cluster":
		if c, err := s.clusters.Clusters(sb.Namespace).Get(sb.Spec.Cluster.Name); err == nil {
			b.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(c, cnpgv1.SchemeGroupVersion.WithKind("Cluster"))}
		}
	}
	_, err := s.cnpg.CNPGV1().Backups(sb.Namespace).Create(ctx, b, metav1.CreateOptions{FieldManager: s.opts.FieldManager})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create backup: %w", err)
	}
	klog.FromContext(ctx).V(2).Info("Scheduled backup created", "backup", klog.KObj(b), "immediate", immediate)
	return nil
}

func timeEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Unix() == b.Unix()
}

// admissionError is the status.error CNPG's admission guard writes for an
// object that fails its webhook's validation.
func admissionError(fields ...string) string {
	return fmt.Sprintf("the resource failed admission validation on: %s (see the operator logs for details)", strings.Join(fields, ", "))
}
