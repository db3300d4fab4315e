package database

import (
	"context"

	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// mayManageExisting says whether this object may take the role or
// database (kind) called name, which exists in Postgres with comment,
// under a DatabaseRole or a CNPG Database: its own marker,
// or — with spec.adoptFrom — the marker of the object it takes over
// (ownership.MayTakeOver). When not, the message says why. An adopted
// database is re-marked for this object by the privileges step's
// COMMENT ON DATABASE, and CNPG makes <db>_admin its owner; an adopted
// role gets this object's marker and password Secret from its
// DatabaseRole, which retires the source's password on this cluster.
func (p *pass) mayManageExisting(ctx context.Context, kind, name, comment string) (bool, string) {
	here := p.adoptionSourceHere()
	if !ownership.MayTakeOver(p.db, comment, here) {
		return false, ownership.RefusedMessage(kind, name, comment, p.db, here)
	}
	if ownership.Adopts(p.db, comment, here) {
		klog.FromContext(ctx).V(2).Info("Adopting what setpoint created for another PostgresDatabase",
			"kind", kind, "name", name, "adoptFrom", p.db.Spec.AdoptFrom)
	}
	return true, ""
}

// adoptionSourceHere reports whether the PostgresDatabase spec.adoptFrom
// names exists and uses this object's cluster: it still owns what is
// marked for it there. The cache answers; an object it does not have yet
// is not there yet.
func (p *pass) adoptionSourceHere() bool {
	from := p.db.Spec.AdoptFrom
	if from == "" {
		return false
	}
	src, err := p.deps.databases.PostgresDatabases(clusterNS(p.db)).Get(from)
	if err != nil || src == nil {
		return false
	}
	return ownership.AdoptionSourceHere(p.db, []*pgv1.PostgresDatabase{src}) && src.Spec.ClusterRef.Name == p.db.Spec.ClusterRef.Name
}
