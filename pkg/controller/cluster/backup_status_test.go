package cluster

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func backupPass(schedule string, observed *cnpgv1.ScheduledBackup) *pass {
	p := testPass()
	p.want = &desired{Schedule: schedule, SnapshotClass: "csi"}
	p.obs = &observation{}
	found := map[string]*cnpgv1.ScheduledBackup{}
	if observed != nil {
		found[observed.Name] = observed
	}
	backupPart.set(p.obs, found)
	return p
}

func scheduledBackup(schedule, statusErr string) *cnpgv1.ScheduledBackup {
	return &cnpgv1.ScheduledBackup{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-snapshot", Namespace: "ns"},
		Spec:       cnpgv1.ScheduledBackupSpec{Schedule: schedule},
		Status:     cnpgv1.ScheduledBackupStatus{Error: statusErr},
	}
}

const guardError = "the resource failed admission validation on: spec.schedule (see the operator logs for details)"

func TestScheduledBackupErrorFailsBackupReady(t *testing.T) {
	t.Parallel()
	p := backupPass("30 1 31 2 *", scheduledBackup("0 30 1 31 2 *", guardError))
	h := backupComponent{}.Observe(t.Context(), p, nil)
	if h.Phase != pgv1.PhaseFailed || h.Reason != "ScheduledBackupInvalid" || !strings.Contains(h.Message, guardError) ||
		!strings.Contains(h.Message, "shop-snapshot") {
		t.Fatalf("health = %+v", h)
	}
}

func TestScheduledBackupErrorAboutAnOldScheduleIsIgnored(t *testing.T) {
	t.Parallel()
	// Our apply this pass changed the schedule; the error is CNPG's view
	// of the previous one.
	p := backupPass("0 2 * * *", scheduledBackup("0 30 1 31 2 *", guardError))
	if h := (backupComponent{}).Observe(t.Context(), p, nil); h.Phase != pgv1.PhaseReady {
		t.Fatalf("health = %+v, want Ready", h)
	}
}

func TestScheduledBackupRefusedByWebhookFails(t *testing.T) {
	t.Parallel()
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "postgresql.cnpg.io", Kind: "ScheduledBackup"}, "shop-snapshot",
		field.ErrorList{field.Invalid(field.NewPath("spec", "schedule"), "0 99 99 * * *", "end of range (99) above maximum (59): 99")})
	p := backupPass("99 99 * * *", nil)
	h := backupComponent{}.Observe(t.Context(), p, invalid)
	if h.Phase != pgv1.PhaseFailed || h.Reason != "ScheduledBackupInvalid" {
		t.Fatalf("health = %+v", h)
	}
	if h := (backupComponent{}).Observe(t.Context(), p, errors.New("connection refused")); h.Phase == pgv1.PhaseFailed {
		t.Fatalf("a transient error failed the cluster: %+v", h)
	}
}
