package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// backupRequestName is the CNPG Backup for one request id: deterministic,
// so a stale cache or a retried pass can never create a second one, and a
// valid name whatever characters the id has.
func backupRequestName(cluster, id string) string {
	sum := sha256.Sum256([]byte(id))
	return cluster + "-backup-" + hex.EncodeToString(sum[:])[:10]
}

// reconcileBackupRequest turns a new backup-request annotation into one
// CNPG Backup through the barman-cloud plugin, and records the request as
// handled in status, so it is acted on once: deleting the Backup later does
// not bring it back, a new id makes a new one.
func reconcileBackupRequest(ctx context.Context, p *pass) error {
	id := p.cluster.Annotations[pgv1.BackupRequestAnnotation]
	if id == "" || lastBackupRequest(p.status) == id {
		return nil
	}
	if p.want.ObjectStore == nil {
		recordBackupRequest(p, pgv1.BackupRequestStatus{ID: id,
			Message: "no backup.objectStore configured: there is nowhere to back up to"})
		return nil
	}
	name := backupRequestName(p.cluster.Name, id)
	client := p.deps.pg.CNPGV1().Backups(p.cluster.Namespace)
	cur, err := claim(ctx, p, "Backup", (*cnpgv1.Backup)(nil), client, name)
	var conflict *ownership.ConflictError
	if errors.As(err, &conflict) && !conflict.Previous {
		// Not ours: never touched. The request is answered; a new id
		// gets a new name.
		recordBackupRequest(p, pgv1.BackupRequestStatus{ID: id, Message: conflict.Error()})
		return nil
	}
	if err != nil {
		return err
	}
	if cur == nil || !ownership.IsControlledBy(cur, p.cluster.UID) {
		if _, err := client.Apply(ctx, pluginBackup(p, name), applyOpts); err != nil {
			return fmt.Errorf("apply backup %s: %w", name, err)
		}
	}
	recordBackupRequest(p, pgv1.BackupRequestStatus{ID: id, Backup: name})
	return nil
}

// pluginBackup is an on-demand CNPG Backup of the cluster through the
// barman-cloud plugin, owned by the cluster: a request's, or the one
// taken before a major upgrade.
func pluginBackup(p *pass, name string) *cnpgac.BackupApplyConfiguration {
	return cnpgac.Backup(name, p.cluster.Namespace).
		WithLabels(ownership.ManagedLabels(ownership.ClusterLabel, p.cluster.Name)).
		WithOwnerReferences(ownership.OwnerRefApply(p.cluster, gvk)).
		WithSpec(cnpgac.BackupSpec().
			WithCluster(cnpgac.LocalObjectReference().WithName(p.cluster.Name)).
			WithMethod(cnpgv1.BackupMethodPlugin).
			WithPluginConfiguration(cnpgac.BackupPluginConfiguration().WithName(barmanPlugin)))
}

func lastBackupRequest(st *pgv1.PostgresClusterStatus) string {
	if st.BackupStatus == nil || st.BackupStatus.LastRequest == nil {
		return ""
	}
	return st.BackupStatus.LastRequest.ID
}

func recordBackupRequest(p *pass, r pgv1.BackupRequestStatus) {
	if p.status.BackupStatus == nil {
		p.status.BackupStatus = &pgv1.BackupStatus{}
	}
	p.status.BackupStatus.LastRequest = &r
}

// observeRecoveryWindow copies the recovery window the barman-cloud plugin
// reports in the ObjectStore for this cluster's serverName
// (archiveServerName).
func observeRecoveryWindow(p *pass) {
	st := p.status.BackupStatus
	if st == nil {
		return
	}
	st.FirstRecoverabilityPoint, st.LastSuccessfulBackupTime, st.LastFailedBackupTime = nil, nil, nil
	store := p.obs.objectStore
	if store == nil || !ownership.IsControlledBy(store, p.cluster.UID) {
		return
	}
	if w, ok := store.Status.ServerRecoveryWindow[archiveServerName(p)]; ok {
		st.FirstRecoverabilityPoint, st.LastSuccessfulBackupTime = w.FirstRecoverabilityPoint, w.LastSuccessfulBackupTime
		st.LastFailedBackupTime = w.LastFailedBackupTime
	}
}
