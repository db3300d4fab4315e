package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// backupComponent keeps the ScheduledBackups: <cluster>-backup through the
// barman-cloud plugin when an object store is configured, and
// <cluster>-snapshot by volume snapshot when a snapshot class is.
type backupComponent struct{}

// backupPart is the component's part of the snapshot: the cluster's
// ScheduledBackups by name.
var backupPart = part[map[string]*cnpgv1.ScheduledBackup]{"backup"}

// Watch caches the ScheduledBackups.
func (backupComponent) Watch(w wiring) (reader, []informers.Registration) {
	inf := w.inf.Setpoint.CNPG().V1().ScheduledBackups()
	lister := inf.Lister()
	read := func(pc *pgv1.PostgresCluster, o *observation) error {
		found := map[string]*cnpgv1.ScheduledBackup{}
		for _, name := range []string{pc.Name + backupSuffix, pc.Name + snapshotSuffix} {
			b, err := informers.IgnoreNotFound(lister.ScheduledBackups(pc.Namespace).Get(name))
			if err != nil {
				return err
			}
			if b != nil {
				found[name] = b
			}
		}
		backupPart.set(o, found)
		return nil
	}
	return read, []informers.Registration{informers.On(inf.Informer(), w.owned)}
}

func (backupComponent) Name() string            { return "backup" }
func (backupComponent) Condition() string       { return pgv1.ConditionBackupReady }
func (backupComponent) Requires() []contractKey { return []contractKey{contractCNPGCluster} }
func (backupComponent) Provides() []contractKey { return nil }

// cnpgSchedule turns the user's five-field cron into CNPG's six fields
// (seconds first). Sent as is, "0 2 * * *" would mean minute 2 of every
// hour to CNPG.
func cnpgSchedule(fiveField string) string {
	return "0 " + strings.Join(strings.Fields(fiveField), " ")
}

// wantedBackups maps each ScheduledBackup name we want to its method.
func wantedBackups(p *pass) map[string]string {
	out := map[string]string{}
	if p.want.Schedule == "" {
		return out
	}
	if p.want.ObjectStore != nil {
		out[p.name(backupSuffix)] = cnpgv1.BackupMethodPlugin
	}
	if p.want.SnapshotClass != "" {
		out[p.name(snapshotSuffix)] = cnpgv1.BackupMethodVolumeSnapshot
	}
	return out
}

func (backupComponent) Reconcile(ctx context.Context, p *pass) error {
	if err := reconcileBackupRequest(ctx, p); err != nil {
		return err
	}
	client := p.deps.pg.CNPGV1().ScheduledBackups(p.cluster.Namespace)
	want := wantedBackups(p)
	backups := backupPart.of(p.obs)
	for name, cur := range backups {
		if _, ok := want[name]; !ok && ownership.IsControlledBy(cur, p.cluster.UID) {
			if err := client.Delete(ctx, name, ownership.DeleteOf(cur)); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete scheduled backup %s: %w", name, err)
			}
		}
	}
	schedule := cnpgSchedule(p.want.Schedule)
	for name, method := range want {
		cur, err := claimCached(ctx, p, "ScheduledBackup", backups[name], client, name)
		if err != nil {
			return err
		}
		if cur != nil && ownership.IsControlledBy(cur, p.cluster.UID) &&
			cur.Spec.Schedule == schedule && cur.Spec.Method == method && cur.Spec.Cluster.Name == p.cluster.Name {
			continue
		}
		spec := cnpgac.ScheduledBackupSpec().WithSchedule(schedule).
			WithCluster(cnpgac.LocalObjectReference().WithName(p.cluster.Name)).
			WithMethod(method).WithBackupOwnerReference("self")
		if method == cnpgv1.BackupMethodPlugin {
			spec.WithPluginConfiguration(cnpgac.BackupPluginConfiguration().WithName(barmanPlugin))
		}
		ac := cnpgac.ScheduledBackup(name, p.cluster.Namespace).
			WithLabels(ownership.ManagedLabels(ownership.ClusterLabel, p.cluster.Name)).
			WithOwnerReferences(ownership.OwnerRefApply(p.cluster, gvk)).
			WithSpec(spec)
		if _, err := client.Apply(ctx, ac, applyOpts); err != nil {
			return fmt.Errorf("apply scheduled backup %s: %w", name, err)
		}
	}
	return nil
}

func (backupComponent) Observe(_ context.Context, p *pass, err error) health {
	if h, ok := conflictHealth(pgv1.ReasonScheduledBackupConflict, err); ok {
		return h
	}
	if h, ok := scheduledBackupInvalid(p, err); ok {
		return h
	}
	if err != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonBackupApplyFailed, err.Error(), 0)
	}
	observeRecoveryWindow(p)
	want := wantedBackups(p)
	if len(want) == 0 {
		if p.status.BackupStatus != nil {
			p.status.BackupStatus.ScheduledBackups = nil
			p.status.BackupStatus.LastScheduleTime = nil
		}
		return ready(pgv1.ReasonNotConfigured, "no backup schedule")
	}
	if p.status.BackupStatus == nil {
		p.status.BackupStatus = &pgv1.BackupStatus{}
	}
	st := p.status.BackupStatus
	st.ScheduledBackups = nil
	for _, name := range []string{p.name(backupSuffix), p.name(snapshotSuffix)} {
		if _, ok := want[name]; !ok {
			continue
		}
		st.ScheduledBackups = append(st.ScheduledBackups, name)
		if b := backupPart.of(p.obs)[name]; b != nil && b.Status.LastScheduleTime != nil {
			if st.LastScheduleTime == nil || st.LastScheduleTime.Before(b.Status.LastScheduleTime) {
				st.LastScheduleTime = b.Status.LastScheduleTime
			}
		}
	}
	return ready(pgv1.ReasonBackupsScheduled, fmt.Sprintf("schedule %q (CNPG: %q)", p.want.Schedule, cnpgSchedule(p.want.Schedule)))
}

// Delete removes the ScheduledBackups with the cluster's data.
func (backupComponent) Delete(ctx context.Context, t *teardown) error {
	if t.retain() {
		return nil
	}
	backups := backupPart.of(t.obs)
	for _, name := range slices.Sorted(maps.Keys(backups)) {
		if err := deleteChild(ctx, t, "ScheduledBackup", backups[name], t.deps.pg.CNPGV1().ScheduledBackups(t.pc.Namespace).Delete); err != nil {
			return err
		}
	}
	return nil
}

// Release keeps the ScheduledBackups that keep backing the retained CNPG
// Cluster up.
func (backupComponent) Release(ctx context.Context, t *teardown) error {
	backups := backupPart.of(t.obs)
	for _, name := range slices.Sorted(maps.Keys(backups)) {
		if err := releaseChild(ctx, t, "ScheduledBackup", backups[name], t.deps.pg.CNPGV1().ScheduledBackups(t.pc.Namespace).Patch); err != nil {
			return err
		}
	}
	return nil
}
