package cluster

import (
	"context"

	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// mayManageExisting says whether owner may manage role, which exists in
// Postgres with comment: its own marker, or — with spec.adoptFrom — the
// marker of the object it takes over (controller.MayTakeOver). When not,
// the message says why. CNPG then gives an adopted role the claimant's
// comment and password Secret, which re-marks it as the claimant's and
// retires the source's password on this cluster.
func mayManageExisting(ctx context.Context, p *pass, owner pgv1.ObjectOwner, role, comment string) (bool, string) {
	db := claimantOf(p, owner)
	here := controller.AdoptionSourceHere(db, p.obs.databases)
	if controller.MayTakeOver(db, comment, here) {
		if controller.Adopts(db, comment, here) {
			klog.FromContext(ctx).V(2).Info("Adopting a role setpoint created for another PostgresDatabase",
				"role", role, "claimant", owner.Name, "adoptFrom", db.Spec.AdoptFrom)
		}
		return true, ""
	}
	return false, controller.RefusedMessage("role", role, comment, db, here)
}

// claimantOf is owner's PostgresDatabase among the cluster's; the plan is
// made from them, so it is there. Should it not be, a bare object of that
// name still matches only its own marker.
func claimantOf(p *pass, owner pgv1.ObjectOwner) *pgv1.PostgresDatabase {
	for _, db := range p.obs.databases {
		if db.Name == owner.Name && db.UID == owner.UID {
			return db
		}
	}
	db := &pgv1.PostgresDatabase{}
	db.Name, db.Namespace, db.UID = owner.Name, p.cluster.Namespace, owner.UID
	return db
}
