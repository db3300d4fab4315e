package database

import (
	"context"

	"k8s.io/utils/ptr"

	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// Prepare starts the databases step ahead of its turn (pipeline.Preparer):
// while the roles step waits for CNPG, a database whose owner role CNPG
// has applied gets its CNPG Database at once. CNPG's instance manager
// applies roles one at a time and Databases beside them, so the database
// is created while the other roles (_rw, _ro) are still being applied,
// instead of after the last.
//
// It creates the CNPG Database of each database that has none yet and
// whose owner role CNPG has applied, with the same checks as the step
// (ensureDatabase: ownership, and whether Postgres has the database
// already). Anything but a failed write is left for the step to report;
// it records nothing in the step's state.
func (databasesStage) Prepare(ctx context.Context, p *pass) error {
	if p.obs.cluster == nil {
		return nil
	}
	for _, d := range p.db.Spec.Databases {
		n := namesOf(p.db, d.Name)
		if p.obs.cnpg[n.CNPG] != nil || !p.ownerApplied(n) {
			continue
		}
		if h := p.ensureDatabase(ctx, d); h.Err != nil {
			return h.Err
		}
	}
	return nil
}

// ownerApplied: the database's owner role is ours and CNPG has applied its
// DatabaseRole at its current generation.
func (p *pass) ownerApplied(n names) bool {
	r := p.obs.roles[naming.RoleObject(p.obs.cluster.Name, n.AdminRole)]
	return r != nil && r.DeletionTimestamp == nil && ownsClusterSide(r, p.db) &&
		ptr.Deref(r.Status.Applied, false) && r.Status.ObservedGeneration == r.Generation
}
