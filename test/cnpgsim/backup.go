package cnpgsim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// backupWaitRetry is how often a Backup looks again at a Cluster that is
// not ready to be backed up.
const backupWaitRetry = 2 * time.Second

// syncBackup takes the base backup a Backup asks for, once: a Backup in
// phase completed or failed is left alone, as CNPG does.
func (s *Simulator) syncBackup(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	b, err := s.baseBackups.Backups(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("get backup: %w", err)
	}
	if b.DeletionTimestamp != nil || b.Status.Phase == cnpgv1.BackupPhaseCompleted || b.Status.Phase == cnpgv1.BackupPhaseFailed {
		return 0, nil
	}
	run := &backupRun{s: s, backup: b.DeepCopy()}
	return run.sync(ctx)
}

type backupRun struct {
	s      *Simulator
	backup *cnpgv1.Backup
}

func (r *backupRun) sync(ctx context.Context) (time.Duration, error) {
	b := r.backup
	if msg := unsupportedBackup(b, r.s.opts.SharedBackend); msg != "" {
		return 0, r.fail(ctx, nil, msg)
	}
	cluster, err := r.s.clusters.Clusters(b.Namespace).Get(b.Spec.Cluster.Name)
	if apierrors.IsNotFound(err) {
		return 0, r.fail(ctx, nil, fmt.Sprintf("while getting cluster %s: cluster not found", b.Spec.Cluster.Name))
	}
	if err != nil {
		return 0, fmt.Errorf("get cluster: %w", err)
	}
	inst := r.s.instance(cache.ObjectName{Namespace: cluster.Namespace, Name: cluster.Name})
	if inst == nil || inst.uid != cluster.UID || cluster.Status.Phase != PhaseHealthy || !inst.backend.srv.running() {
		// CNPG waits for a ready primary to back up.
		return backupWaitRetry, r.writeStatus(ctx, func(st *cnpgv1.BackupStatus) { st.Phase = cnpgv1.BackupPhasePending })
	}
	pc := walArchiver(cluster)
	if pc == nil {
		return 0, r.fail(ctx, nil, fmt.Sprintf("cluster %s has no %s WAL archiver: nothing to back up to", cluster.Name, barmanPlugin))
	}
	a, err := r.s.resolveArchive(ctx, cluster.Namespace, cluster.Name, pc)
	if errors.Is(err, errNoObjectStore) {
		return 0, r.fail(ctx, nil, err.Error())
	}
	if err != nil {
		return 0, err
	}
	if err := a.ensure(r.s.owner); err != nil {
		return 0, err
	}
	return r.run(ctx, inst.backend.srv, a)
}

// unsupportedBackup says why the stand-in will not take a Backup.
func unsupportedBackup(b *cnpgv1.Backup, shared bool) string {
	switch {
	case shared:
		return "cnpgsim shared-backend mode takes no backups: one server holds every Cluster"
	case b.Spec.Method != cnpgv1.BackupMethodPlugin:
		return fmt.Sprintf("cnpgsim takes only method %q backups with the %s plugin, not %q", cnpgv1.BackupMethodPlugin, barmanPlugin, b.Spec.Method)
	case b.Spec.PluginConfiguration == nil || b.Spec.PluginConfiguration.Name != barmanPlugin:
		return fmt.Sprintf("unknown plugin: only %s is available", barmanPlugin)
	}
	return ""
}

// run takes the backup, reporting phase running then completed (or
// failed) with the fields CNPG's plugin backups report; a stalled backup
// stays running and is looked at again after the duration returned.
func (r *backupRun) run(ctx context.Context, srv *server, a *archive) (time.Duration, error) {
	started := metav1.Now()
	err := r.writeStatus(ctx, func(st *cnpgv1.BackupStatus) {
		st.Phase = cnpgv1.BackupPhaseRunning
		st.Method = cnpgv1.BackupMethodPlugin
		st.Online = ptr.To(true)
		if st.StartedAt == nil { // a stalled backup started at its first look
			st.StartedAt = &started
		}
		// No serverName or destinationPath: CNPG fills them for its
		// in-tree barman backups only, never for a plugin's.
	})
	if err != nil {
		return 0, err
	}
	if err := r.s.setClusterCondition(ctx, r.backup.Namespace, r.backup.Spec.Cluster.Name, backupStarting()); err != nil {
		return 0, err
	}
	logger := klog.FromContext(ctx)
	if refusal := r.s.storeRefusal(r.backup.Namespace, a.config); refusal != "" {
		logger.Info("Backup refused by the object store", "backup", klog.KObj(r.backup), "err", refusal)
		return 0, r.failBeforeBarman(ctx, refusal)
	}
	if retry, stalled := r.stalled(ctx); stalled {
		return retry, nil
	}
	info, berr := r.s.takeBaseBackup(ctx, srv, a, r.backup.Name)
	if berr != nil {
		logger.Info("Base backup failed", "backup", klog.KObj(r.backup), "err", berr)
		return 0, r.fail(ctx, a, berr.Error())
	}
	logger.V(2).Info("Base backup completed", "backup", klog.KObj(r.backup), "id", info.BackupID, "took", info.StoppedAt.Sub(info.StartedAt))
	if err := r.writeStatus(ctx, func(st *cnpgv1.BackupStatus) {
		st.Phase = cnpgv1.BackupPhaseCompleted
		st.StartedAt = &metav1.Time{Time: info.StartedAt}
		st.StoppedAt = &metav1.Time{Time: info.StoppedAt}
		st.BeginWal, st.EndWal = info.BeginWal, info.EndWal
		st.BeginLSN, st.EndLSN = info.BeginLSN, info.EndLSN
		st.BackupID, st.BackupName = info.BackupID, info.BackupName
		st.MajorVersion = srv.majorVersion()
	}); err != nil {
		return 0, err
	}
	if err := r.s.setClusterCondition(ctx, r.backup.Namespace, r.backup.Spec.Cluster.Name, backupSucceeded()); err != nil {
		return 0, err
	}
	return 0, r.s.updateRecoveryWindow(ctx, r.backup.Namespace, a, nil)
}

// fail records a failed backup; a is the archive when one was resolved,
// whose recovery window then notes the failure.
func (r *backupRun) fail(ctx context.Context, a *archive, msg string) error {
	now := metav1.Now()
	err := r.writeStatus(ctx, func(st *cnpgv1.BackupStatus) {
		st.Phase = cnpgv1.BackupPhaseFailed
		st.Error = msg
		if st.StartedAt != nil {
			st.StoppedAt = &now
		}
	})
	if err != nil || a == nil {
		return err
	}
	if err := r.s.setClusterCondition(ctx, r.backup.Namespace, r.backup.Spec.Cluster.Name, backupFailed(msg)); err != nil {
		return err
	}
	return r.s.updateRecoveryWindow(ctx, r.backup.Namespace, a, &now)
}

// failBeforeBarman records a backup the plugin failed before barman ran
// (its credentials could not be built): the Backup and CNPG's
// LastBackupSucceeded say so, but the ObjectStore's window does not, as
// the plugin notes lastFailedBackupTime only when barman's backup itself
// fails (internal/cnpgi/instance/backup.go, handleBackupError).
func (r *backupRun) failBeforeBarman(ctx context.Context, msg string) error {
	if err := r.fail(ctx, nil, msg); err != nil {
		return err
	}
	return r.s.setClusterCondition(ctx, r.backup.Namespace, r.backup.Spec.Cluster.Name, backupFailed(msg))
}

func (r *backupRun) writeStatus(ctx context.Context, edit func(*cnpgv1.BackupStatus)) error {
	next := r.backup.DeepCopy()
	edit(&next.Status)
	if equality.Semantic.DeepEqual(next.Status, r.backup.Status) {
		return nil
	}
	updated, err := r.s.cnpg.CNPGV1().Backups(next.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: r.s.opts.FieldManager})
	if err != nil {
		return fmt.Errorf("update backup status: %w", err)
	}
	r.backup = updated
	return nil
}
