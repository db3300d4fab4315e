package cluster

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// scheduledBackupInvalid reports a ScheduledBackup CNPG will not run:
// refused by CNPG's webhook when we applied it (reconcileErr), or
// refused by CNPG's admission guard afterwards, which records the reason
// in the ScheduledBackup's status.error and stops reconciling it. Either
// way nothing is backed up until the spec changes, so the cluster is
// Failed, not Ready with a schedule that never fires.
func scheduledBackupInvalid(p *pass, reconcileErr error) (health, bool) {
	if apierrors.IsInvalid(reconcileErr) {
		return failed(pgv1.ReasonScheduledBackupInvalid, "CloudNativePG refused the ScheduledBackup: "+reconcileErr.Error()), true
	}
	if reconcileErr != nil {
		return health{}, false
	}
	schedule := cnpgSchedule(p.want.Schedule)
	for _, name := range []string{p.name(backupSuffix), p.name(snapshotSuffix)} {
		if _, wanted := wantedBackups(p)[name]; !wanted {
			continue
		}
		b := backupPart.of(p.obs)[name]
		// CNPG has no observedGeneration here: an error is about the
		// schedule we want only when the object already carries it (a
		// status read before this pass's apply is about the old one).
		if b == nil || b.Status.Error == "" || b.Spec.Schedule != schedule {
			continue
		}
		return failed(pgv1.ReasonScheduledBackupInvalid, fmt.Sprintf("CloudNativePG reports ScheduledBackup %s (schedule %q) invalid: %s",
			name, schedule, b.Status.Error)), true
	}
	return health{}, false
}
