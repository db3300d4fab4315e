package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// upgradeBackupName is the CNPG Backup taken before one attempt:
// deterministic (the attempt's target and start), so a restarted operator
// finds the one it made instead of taking a second.
func upgradeBackupName(cluster string, rec *pgv1.MajorUpgradeStatus) string {
	return backupRequestName(cluster, fmt.Sprintf("upgrade-%d-to-%d-%d", rec.From, rec.To, rec.StartTime.Unix()))
}

// upgradeBackup takes an on-demand backup through the barman-cloud plugin
// and waits for it to complete before CloudNativePG is asked to upgrade:
// pg_upgrade --link leaves the old data unusable once it has run, and a
// backup of the old major is the way back. A cluster with no object store
// needs the upgrade-without-backup annotation, set to the target major.
func (p *pass) upgradeBackup(ctx context.Context, rec *pgv1.MajorUpgradeStatus) error {
	p.upgrade.hold = holdOf(p.observedCNPG(), p.want)
	if p.want.ObjectStore == nil && p.cluster.Annotations[pgv1.UpgradeWithoutBackupAnnotation] != strconv.Itoa(int(rec.To)) {
		p.upgradeWaits(rec, pgv1.ReasonUpgradeNeedsBackup, fmt.Sprintf(
			"the cluster has no backup.objectStore, so no backup can be taken before the upgrade: configure one, or set the annotation %s=%d to upgrade without a backup",
			pgv1.UpgradeWithoutBackupAnnotation, rec.To), 0) // the annotation wakes us
		return nil
	}
	if !p.attemptOnRecord(rec) {
		p.upgradeWaits(rec, pgv1.ReasonUpgradeBackingUp, fmt.Sprintf(
			"recording the attempt from %d to %d before its backup is taken or CloudNativePG is asked to upgrade", rec.From, rec.To), attemptRecordRecheck)
		return nil
	}
	if p.want.ObjectStore == nil {
		p.startUpgrade(rec, "no backup first, as acknowledged by "+pgv1.UpgradeWithoutBackupAnnotation)
		return nil
	}
	name := upgradeBackupName(p.cluster.Name, rec)
	client := p.deps.pg.CNPGV1().Backups(p.cluster.Namespace)
	cur, err := claim(ctx, p, "Backup", (*cnpgv1.Backup)(nil), client, name)
	var conflict *ownership.ConflictError
	if errors.As(err, &conflict) {
		p.upgradeWaits(rec, pgv1.ReasonUpgradeBackupFailed, conflict.Error(), upgradePreflightRecheck)
		return nil
	}
	if err != nil {
		return err
	}
	rec.Backup = name
	if cur == nil {
		if _, err := client.Apply(ctx, pluginBackup(p, name), applyOpts); err != nil {
			return fmt.Errorf("apply backup %s: %w", name, err)
		}
		p.upgradeWaits(rec, pgv1.ReasonUpgradeBackingUp, fmt.Sprintf("Backup %s started", name), upgradeBackupRecheck)
		return nil
	}
	switch cur.Status.Phase {
	case cnpgv1.BackupPhaseCompleted:
		p.startUpgrade(rec, fmt.Sprintf("Backup %s completed", name))
	case cnpgv1.BackupPhaseFailed:
		msg := fmt.Sprintf("Backup %s failed: %s; nothing was upgraded: fix the backup, then set the annotation %s to a new value",
			name, cur.Status.Error, pgv1.RetryUpgradeAnnotation)
		p.upgradeCondition(false, pgv1.ReasonUpgradeBackupFailed, msg)
		p.upgradeTo(rec, pgv1.UpgradeFailed, msg)
	default:
		p.upgradeWaits(rec, pgv1.ReasonUpgradeBackingUp, fmt.Sprintf("Backup %s is %s", name, phaseOr(cur.Status.Phase, "pending")), upgradeBackupRecheck)
	}
	return nil
}

// attemptRecordRecheck: the pass that records a new attempt looks again
// at once; its own status write wakes the next pass too.
const attemptRecordRecheck = time.Second

// attemptOnRecord: the stored status (the pass's snapshot, not the record
// it builds) already holds this attempt. The backup's name comes from the
// attempt's start, and releasing the hold sets CloudNativePG going: a pass
// that did either and then lost its status write (a crash, a conflict, a
// leader change) would leave the next one no record of the attempt, so it
// would start another, with another backup name and the data's image held
// again while pg_upgrade may run. So the first pass of an attempt only
// records it; the passes after it act, and find what they did.
func (p *pass) attemptOnRecord(rec *pgv1.MajorUpgradeStatus) bool {
	stored := p.cluster.Status.Upgrade
	return stored != nil && stored.From == rec.From && stored.To == rec.To && stored.StartTime.Equal(&rec.StartTime)
}

// startUpgrade lets CloudNativePG upgrade: the hold goes, so this pass's
// provisioner applies the target major.
func (p *pass) startUpgrade(rec *pgv1.MajorUpgradeStatus, why string) {
	p.upgrade.hold = nil
	p.upgradeTo(rec, pgv1.UpgradeUpgrading, why+"; CloudNativePG runs pg_upgrade")
	p.upgradeCondition(false, pgv1.ReasonUpgrading, rec.Message)
	p.upgrade.recheck = upgradeRunningRecheck
}

func phaseOr(phase, or string) string {
	if phase == "" {
		return or
	}
	return phase
}
