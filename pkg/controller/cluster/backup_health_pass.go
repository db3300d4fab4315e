package cluster

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// recordBackupHealth sets BackupHealthy from the snapshot, after the
// pipeline (whatever step it stopped at: archiving can fail while CNPG
// restarts an instance) and before conclude. It never touches the phase
// (docs/adr/0003-backup-health-does-not-fail-ready.md). Without an object
// store there is nothing to read, and the condition goes; without a CNPG
// Cluster yet, status keeps what it says. It returns the verdict for the
// gauges and the pass's recheck, nil when there is none.
func (p *pass) recordBackupHealth() *backupVerdict {
	if p.want == nil || p.want.ObjectStore == nil {
		meta.RemoveStatusCondition(&p.status.Conditions, pgv1.ConditionBackupHealthy)
		return nil
	}
	in, ok := p.backupInputs()
	if !ok {
		return nil
	}
	v := judgeBackups(in, p.deps.clock.Now())
	meta.SetStatusCondition(&p.status.Conditions, metav1.Condition{
		Type: pgv1.ConditionBackupHealthy, Status: v.status, Reason: v.reason, Message: v.message,
		ObservedGeneration: p.cluster.Generation,
	})
	return &v
}

// backupInputs gathers the reading's inputs; false while there is no
// CNPG Cluster to read.
func (p *pass) backupInputs() (backupInputs, bool) {
	cnpg := p.observedCNPG()
	if cnpg == nil {
		return backupInputs{}, false
	}
	in := backupInputs{
		archiving:  meta.FindStatusCondition(cnpg.Status.Conditions, cnpgContinuousArchiving),
		lastBackup: meta.FindStatusCondition(cnpg.Status.Conditions, cnpgLastBackupSucceeded),
	}
	if store := p.obs.objectStore; store != nil && ownership.IsControlledBy(store, p.cluster.UID) {
		if w, ok := store.Status.ServerRecoveryWindow[archiveServerName(p)]; ok {
			in.window = &w
		}
	}
	name := p.name(backupSuffix)
	if _, scheduled := wantedBackups(p)[name]; scheduled {
		in.schedule = p.want.Schedule
		if sb := backupPart.of(p.obs)[name]; sb != nil && ownership.IsControlledBy(sb, p.cluster.UID) {
			in.scheduledSince = &sb.CreationTimestamp
		}
	}
	return in, true
}

// exportBackupHealth sets the cluster's backup gauges from the verdict
// and the status the pass concluded; none without an object store.
func (c *Controller) exportBackupHealth(pc *pgv1.PostgresCluster, st *pgv1.PostgresClusterStatus, v *backupVerdict) {
	key := types.NamespacedName{Namespace: pc.Namespace, Name: pc.Name}
	if meta.FindStatusCondition(st.Conditions, pgv1.ConditionBackupHealthy) == nil {
		c.deps.backupMetrics.Forget(key)
		return
	}
	if v == nil {
		return // no reading this pass: the gauges keep the last one
	}
	r := controller.BackupReading{ArchivingOK: v.archivingOK}
	if b := st.BackupStatus; b != nil && b.LastSuccessfulBackupTime != nil {
		t := b.LastSuccessfulBackupTime.Time
		r.LastSuccessfulBackup = &t
	}
	c.deps.backupMetrics.Set(key, r)
}

// backupRecheck is when time alone would change the reading.
func backupRecheck(v *backupVerdict) time.Duration {
	if v == nil {
		return 0
	}
	return v.recheck
}

// backupHealthEvents announces, after a status write, BackupHealthy
// turning False or changing its cause (a Warning) and turning True again
// (Normal): one Event per transition, none while it holds, and none for
// Unknown (nothing is known to be wrong).
func (c *Controller) backupHealthEvents(pc *pgv1.PostgresCluster, st *pgv1.PostgresClusterStatus) {
	was := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionBackupHealthy)
	now := meta.FindStatusCondition(st.Conditions, pgv1.ConditionBackupHealthy)
	if now == nil {
		return
	}
	wasFailing := was != nil && was.Status == metav1.ConditionFalse
	switch {
	case now.Status == metav1.ConditionFalse && (!wasFailing || was.Reason != now.Reason):
		c.deps.recorder.Eventf(pc, corev1.EventTypeWarning, pgv1.EventBackupsFailing, "%s: %s", now.Reason, now.Message)
	case now.Status == metav1.ConditionTrue && wasFailing:
		c.deps.recorder.Eventf(pc, corev1.EventTypeNormal, pgv1.EventBackupsRecovered, "%s (was %s)", now.Message, was.Reason)
	}
}
