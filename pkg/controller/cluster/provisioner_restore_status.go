package cluster

import (
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

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
