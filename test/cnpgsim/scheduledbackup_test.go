package cnpgsim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// A schedule CNPG's parser refuses is refused by CNPG's real webhook; one
// that bypassed the webhook (stored before it, say) is reported the way
// CNPG's admission guard does (field paths only, never values), and cleared
// once fixed.
func TestInvalidScheduleReportedLikeCNPG(t *testing.T) {
	ns := newNamespace(t)
	backup := &cnpgv1.ScheduledBackup{
		ObjectMeta: metav1.ObjectMeta{Name: "web-hourly", Namespace: ns},
		Spec: cnpgv1.ScheduledBackupSpec{
			Schedule: "0 0 5-2 * * *", Cluster: cnpgv1.LocalObjectReference{Name: "web"},
			Method: cnpgv1.BackupMethodVolumeSnapshot,
		},
	}
	_, err := pg.CNPGV1().ScheduledBackups(ns).Create(t.Context(), backup, metav1.CreateOptions{FieldValidation: "Strict"})
	if err == nil || !strings.Contains(err.Error(), `admission webhook "vscheduledbackup.cnpg.io" denied the request`) {
		t.Fatalf("create scheduled backup: got %v, want CNPG's webhook to refuse it", err)
	}
	backup.Labels = map[string]string{envtest.BypassCNPGWebhooksLabel: "true"}
	if _, err := pg.CNPGV1().ScheduledBackups(ns).Create(t.Context(), backup, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatalf("create scheduled backup past the webhook: %v", err)
	}
	const want = "the resource failed admission validation on: spec.schedule (see the operator logs for details)"
	status := func(check func(cnpgv1.ScheduledBackupStatus) error) func() error {
		return func() error {
			b, err := pg.CNPGV1().ScheduledBackups(ns).Get(t.Context(), "web-hourly", metav1.GetOptions{})
			if err != nil {
				return err
			}
			return check(b.Status)
		}
	}
	eventually(t, 10*time.Second, "error in status", status(func(s cnpgv1.ScheduledBackupStatus) error {
		if s.Error != want {
			return fmt.Errorf("status.error = %q", s.Error)
		}
		return nil
	}))

	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		b, err := pg.CNPGV1().ScheduledBackups(ns).Get(t.Context(), "web-hourly", metav1.GetOptions{})
		if err != nil {
			return err
		}
		b.Spec.Schedule = "0 0 2-5 * * *"
		_, err = pg.CNPGV1().ScheduledBackups(ns).Update(t.Context(), b, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "error cleared", status(func(s cnpgv1.ScheduledBackupStatus) error {
		if s.Error != "" || s.NextScheduleTime == nil {
			return fmt.Errorf("status = %+v", s)
		}
		return nil
	}))
}
