package database

import (
	"slices"
	"strings"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// roleReport is what a pass knows of the roles of its cluster. Who owns
// each role and which claims were refused come from the PostgresCluster's
// status: the cluster controller is the single arbiter. How CloudNativePG
// stands with each role comes from the CNPG Cluster's status, read here
// directly: relaying it through the PostgresCluster's status cost a status
// write (and a watch event for every watcher) per report.
type roleReport struct {
	owners    []pgv1.RoleOwner
	conflicts []pgv1.RoleConflict
	// reconciled are the roles CNPG reports in line with its spec;
	// cannotReconcile its messages for the roles it cannot apply.
	reconciled      []string
	cannotReconcile map[string]string
}

// reportOf reads the role report of pc. CNPG's side counts only from the
// CNPG Cluster pc controls: a namesake setpoint did not create says
// nothing about our roles.
func reportOf(pc *pgv1.PostgresCluster, cc *cnpgv1.Cluster) roleReport {
	var r roleReport
	if pc == nil {
		return r
	}
	if cc != nil && controller.IsControlledBy(cc, pc.UID) {
		r = cnpgSide(cc)
	}
	if st := pc.Status.ManagedRolesStatus; st != nil {
		r.owners, r.conflicts = st.Owners, st.Conflicts
	}
	return r
}

// cnpgSide is CNPG's word on the roles of cc.
func cnpgSide(cc *cnpgv1.Cluster) roleReport {
	var r roleReport
	mr := cc.Status.ManagedRolesStatus
	if mr == nil {
		return r
	}
	r.reconciled = mr.ByStatus[cnpgv1.RoleStatusReconciled]
	for name, msgs := range mr.CannotReconcile {
		if r.cannotReconcile == nil {
			r.cannotReconcile = map[string]string{}
		}
		r.cannotReconcile[name] = strings.Join(msgs, "; ")
	}
	return r
}

// isReconciled: CNPG reports role in line with its spec.
func (r roleReport) isReconciled(role string) bool { return slices.Contains(r.reconciled, role) }

// failure is CNPG's message for a role it cannot reconcile.
func (r roleReport) failure(role string) (string, bool) {
	msg, ok := r.cannotReconcile[role]
	return msg, ok
}

// owns: the cluster gave role to owner.
func (r roleReport) owns(role string, owner pgv1.ObjectOwner) bool {
	return slices.ContainsFunc(r.owners, func(o pgv1.RoleOwner) bool { return o.Role == role && o.Owner == owner })
}

// about is the part of the report that concerns roles: the owners and
// conflicts naming one of roles or owner, and CNPG's word on roles. Two
// reports with equal parts say the same to that database.
func (r roleReport) about(roles []string, owner pgv1.ObjectOwner) roleReport {
	mine := func(role string) bool { return slices.Contains(roles, role) }
	var out roleReport
	for _, o := range r.owners {
		if mine(o.Role) || o.Owner == owner {
			out.owners = append(out.owners, o)
		}
	}
	for _, c := range r.conflicts {
		if mine(c.Role) || c.Owner == owner || c.Claimant == owner {
			out.conflicts = append(out.conflicts, c)
		}
	}
	for _, name := range r.reconciled {
		if mine(name) {
			out.reconciled = append(out.reconciled, name)
		}
	}
	slices.Sort(out.reconciled)
	for name, msg := range r.cannotReconcile {
		if mine(name) {
			if out.cannotReconcile == nil {
				out.cannotReconcile = map[string]string{}
			}
			out.cannotReconcile[name] = msg
		}
	}
	return out
}
