package cnpgsim

import (
	"context"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// StallBackups makes the Cluster's backups hang once started, as a
// barman-cloud-backup stuck on its object store (or a plugin sidecar that
// never answers CNPG's backup call) leaves them: each Backup stays
// running with LastBackupSucceeded False "BackupStarted", neither
// completed nor failed, while WAL archiving goes on. Its ScheduledBackup
// then fires no more (CNPG takes no backup of a schedule while one of its
// own runs), so the last successful backup only ages. ResumeBackups lets
// them finish.
func (s *Simulator) StallBackups(namespace, name string) {
	s.editFaults(namespace, name, func(f *faults) { f.stallBackups = true })
}

// ResumeBackups undoes StallBackups: a stalled Backup completes at its
// next look (within backupWaitRetry), as a hung backup that gets its
// answer does.
func (s *Simulator) ResumeBackups(namespace, name string) {
	s.editFaults(namespace, name, func(f *faults) { f.stallBackups = false })
}

// stalled says whether the backup must hang now; the Backup then looks
// again after backupWaitRetry.
func (r *backupRun) stalled(ctx context.Context) (time.Duration, bool) {
	key := cache.ObjectName{Namespace: r.backup.Namespace, Name: r.backup.Spec.Cluster.Name}
	if !r.s.faultsFor(key).stallBackups {
		return 0, false
	}
	klog.FromContext(ctx).V(2).Info("Backup stalled", "backup", klog.KObj(r.backup))
	return backupWaitRetry, true
}
