package cluster

import (
	"time"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// restoreSourceName is the externalClusters entry a restore reads from.
// It is also CNPG's default serverName, which we set explicitly anyway.
const restoreSourceName = "restore-source"

// withRestore adds CNPG's bootstrap.recovery and the externalClusters entry
// it reads from when the cluster is created from backups (spec.restore),
// and records in status where the data came from once it did
// (restoredFrom). CNPG reads bootstrap only when it creates the Cluster;
// the values never change afterwards (spec.restore is immutable), so
// applying them again is a no-op.
func withRestore(p *pass, spec *cnpgac.ClusterSpecApplyConfiguration) {
	r := p.cluster.Spec.Restore
	if r == nil {
		p.status.RestoredFrom = nil
		return
	}
	store := restoreObjectStore(p, r)
	rec := cnpgac.BootstrapRecovery().WithSource(restoreSourceName)
	if r.TargetTime != nil {
		rec.WithRecoveryTarget(cnpgac.RecoveryTarget().WithTargetTime(r.TargetTime.UTC().Format(time.RFC3339)))
	}
	spec.WithBootstrap(cnpgac.BootstrapConfiguration().WithRecovery(rec))
	spec.WithExternalClusters(externalEntry(restoreSourceName, store, r.Source))
	p.status.RestoredFrom = restoredFrom(p, r, store)
}

// restoredFrom is status.restoredFrom for restore r from ObjectStore
// store: set only on a cluster that did restore, which the CNPG Cluster we
// control tells by its currentPrimary — set once an instance ran, which
// after bootstrap.recovery means the full-recovery Job succeeded, and
// never cleared (cnpgView.bootstrapped). Before that, and after a failed
// restore, nothing was restored; spec.restore alone says only what was
// asked.
func restoredFrom(p *pass, r *pgv1.RestoreSpec, store string) *pgv1.RestoreStatus {
	cl := p.observedCNPG()
	if cl == nil || !ownership.IsControlledBy(cl, p.cluster.UID) ||
		cl.Spec.Bootstrap == nil || cl.Spec.Bootstrap.Recovery == nil ||
		!viewOf(cl).bootstrapped() {
		return nil
	}
	return &pgv1.RestoreStatus{Source: r.Source, ObjectStore: store, TargetTime: r.TargetTime}
}

// restoreObjectStore is the ObjectStore holding the source's backups: the
// one named in spec.restore, else this cluster's own (which exists when
// its class configures an object store; when it does not, CNPG reports the
// missing ObjectStore and the cluster fails with its message).
func restoreObjectStore(p *pass, r *pgv1.RestoreSpec) string {
	if r.ObjectStoreName != "" {
		return r.ObjectStoreName
	}
	return naming.ObjectStore(p.cluster.Name)
}
