package database

import (
	"context"
	"fmt"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// rolesStep gates on the cluster's role report: which PostgresDatabase
// owns each role (the PostgresCluster's managedRolesStatus, written by its
// managedRoles component) and CNPG's view of each (the CNPG Cluster's
// status). A role counts as ours only when the
// cluster names this object (name and UID) as its owner: another object's
// reconciled role of the same name is not ours.
func rolesStep(_ context.Context, p *pass) health {
	rep := p.obs.roles
	me := ownerOfDB(p.db)
	var hs []health
	pending := 0
	for _, d := range p.db.Spec.Databases {
		e := p.entry(d.Name)
		var dbh []health
		for i := range e.Roles {
			r := &e.Roles[i]
			h := roleHealth(rep, me, r.Name)
			r.Exists = h.Phase == pgv1.PhaseReady
			if h.Phase != pgv1.PhaseReady && h.Phase != pgv1.PhaseFailed {
				pending++
			}
			dbh = append(dbh, h)
		}
		h := worst(dbh)
		if h.Phase != pgv1.PhaseReady {
			p.problem(d.Name, h.Message)
		}
		hs = append(hs, h)
	}
	h := worst(hs)
	if h.Phase == pgv1.PhaseProvisioning {
		return waiting(pgv1.PhaseProvisioning, "RolesPending", fmt.Sprintf("%d role(s) not yet reconciled by CloudNativePG", pending), provisionRecheck)
	}
	if h.Phase != pgv1.PhaseReady {
		return h
	}
	return ready("RolesReconciled", "every role is reconciled by CloudNativePG")
}

// roleHealth classifies one role from the cluster's report.
func roleHealth(rep roleReport, me pgv1.ObjectOwner, role string) health {
	for _, c := range rep.conflicts {
		if c.Role != role || c.Claimant != me {
			continue
		}
		if c.Owner.Name == "" {
			// Not another PostgresDatabase's: Postgres has the role and
			// setpoint did not create it for us.
			return failed("RoleExists", c.Message, failedRecheck)
		}
		return failed("RoleConflict", fmt.Sprintf("role %s is owned by PostgresDatabase %q", role, c.Owner.Name), failedRecheck)
	}
	if !rep.owns(role, me) {
		// Worded like the wait after it (taken on, not yet reconciled):
		// for the user it is one wait, and one status write.
		return waiting(pgv1.PhaseProvisioning, "RolesPending", fmt.Sprintf("role %s not yet reconciled by CloudNativePG", role), provisionRecheck)
	}
	if msg, ok := rep.failure(role); ok {
		return failed("RoleReconcileFailed", fmt.Sprintf("role %s: %s", role, msg), failedRecheck)
	}
	if !rep.isReconciled(role) {
		return waiting(pgv1.PhaseProvisioning, "RolesPending", fmt.Sprintf("role %s not yet reconciled by CloudNativePG", role), provisionRecheck)
	}
	return ready("", "")
}
