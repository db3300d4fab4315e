package cnpgsim

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// scheduledBackupLabel names, on a Backup, the ScheduledBackup that made
// it (CNPG's utils.ParentScheduledBackupLabelName).
const scheduledBackupLabel = "cnpg.io/scheduled-backup"

// childBackupRetry is how long CNPG's ScheduledBackup waits for a Backup
// of its own that is not done yet before it looks again
// (internal/controller/scheduledbackup_controller.go, "retrying in 60
// seconds"). It watches no Backup, so the end of one is not seen sooner.
const childBackupRetry = time.Minute

// runningChild is a Backup the ScheduledBackup made that is neither
// completed nor failed, or nil. CNPG checks for one before every firing
// and takes no other backup while it runs: a backup that hangs stops the
// schedule, with no Backup failed, so only the age of the last successful
// backup tells (setpoint's BackupOverdue).
func (s *Simulator) runningChild(sb *cnpgv1.ScheduledBackup) (*cnpgv1.Backup, error) {
	children, err := s.baseBackups.Backups(sb.Namespace).List(labels.SelectorFromSet(labels.Set{scheduledBackupLabel: sb.Name}))
	if err != nil {
		return nil, fmt.Errorf("list the backups of scheduled backup %s: %w", sb.Name, err)
	}
	for _, b := range children {
		if b.Status.Phase != cnpgv1.BackupPhaseCompleted && b.Status.Phase != cnpgv1.BackupPhaseFailed {
			return b, nil
		}
	}
	return nil, nil
}
