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
)

// cnpgSchedule parses schedules as CNPG does: six fields, seconds first.
var cnpgSchedule = cron.NewParser(cron.Second | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// syncScheduledBackup reports when the next backup would run. No Backup
// objects are created and nothing is backed up.
func (s *Simulator) syncScheduledBackup(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	sb, err := s.backups.ScheduledBackups(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("get scheduled backup: %w", err)
	}
	if sb.DeletionTimestamp != nil || (sb.Spec.Suspend != nil && *sb.Spec.Suspend) {
		return 0, nil
	}
	want := sb.Status.DeepCopy()
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
		// Keep the last check while the schedule is unchanged, so the
		// status is written once and not on every sync.
		check := time.Now().UTC()
		if last := sb.Status.LastCheckTime; last != nil && sb.Status.NextScheduleTime != nil &&
			schedule.Next(last.Time).Unix() == sb.Status.NextScheduleTime.Unix() {
			check = last.Time
		}
		check = check.Truncate(time.Second)
		next := schedule.Next(check)
		want.LastCheckTime = &metav1.Time{Time: check}
		want.NextScheduleTime = &metav1.Time{Time: next}
	}
	if want.Error == sb.Status.Error && timeEqual(want.LastCheckTime, sb.Status.LastCheckTime) &&
		timeEqual(want.NextScheduleTime, sb.Status.NextScheduleTime) {
		return 0, nil
	}
	next := sb.DeepCopy()
	next.Status = *want
	if _, err := s.cnpg.CNPGV1().ScheduledBackups(sb.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: s.opts.FieldManager}); err != nil {
		return 0, fmt.Errorf("update scheduled backup status: %w", err)
	}
	return 0, nil
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
