package database

import (
	"context"
	"fmt"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// claimRole proves, before the first write of a role's DatabaseRole, that
// the role is nobody else's. CNPG would otherwise act on it: it gives
// managed.roles precedence over a DatabaseRole, lets two DatabaseRoles of
// one role fight, and takes over a role Postgres already has (new
// password, and a drop on deletion). So a role is refused when
//   - the CNPG Cluster's spec.managed.roles lists it for someone else
//     (listed with our marker, it is ours from an earlier setpoint, which
//     kept roles there: the cluster controller hands it over and we wait);
//   - another DatabaseRole manages it on this cluster;
//   - Postgres has it without setpoint's marker for this object (or for
//     the one spec.adoptFrom takes over).
func (p *pass) claimRole(ctx context.Context, w roleWant) health {
	if e, ok := managedEntry(p.obs.cnpgCluster, w.role); ok {
		if e.Comment == ownership.PostgresMarker(p.db.Namespace, p.db.Name) {
			return waiting(pgv1.PhaseProvisioning, pgv1.ReasonRolesMigrating,
				fmt.Sprintf("waiting for PostgresCluster %q to move role %s from the CNPG Cluster's spec.managed.roles to a DatabaseRole (setpoint empties only a list it still owns: if someone applied that list since, remove the entry there)", w.cluster, w.role), provisionRecheck)
		}
		return failed(pgv1.ReasonRoleConflict, fmt.Sprintf("role %s is listed in CNPG Cluster %q's spec.managed.roles, which CloudNativePG gives precedence; setpoint leaves it untouched: remove it there, or use another database name", w.role, w.cluster), failedRecheck)
	}
	if other := p.otherRoleObject(w); other != nil {
		return failed(pgv1.ReasonRoleConflict, fmt.Sprintf("role %s is managed by DatabaseRole %q, which setpoint did not create for this object; setpoint leaves it untouched: delete it, or use another database name", w.role, other.Name), failedRecheck)
	}
	t, err := p.monitor(ctx)
	if err != nil {
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonMonitorUnavailable, err.Error(), sqlRecheck)
	}
	comments, err := p.deps.sql.roleComments(ctx, t, []string{w.role})
	if err != nil {
		p.deps.cas.Forget(clusterNS(p.db), naming.CASecret(w.cluster)) // in case the CA rotated
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonRoleUnverified,
			fmt.Sprintf("cannot check in Postgres whether role %s already exists: %v", w.role, err), sqlRecheck)
	}
	comment, exists := comments[w.role]
	if !exists {
		return ready("", "")
	}
	if ok, why := p.mayManageExisting(ctx, "role", w.role, comment); !ok {
		return failed(pgv1.ReasonRoleExists, why, failedRecheck)
	}
	return ready("", "")
}

// managedEntry is role's entry in cc's spec.managed.roles.
func managedEntry(cc *cnpgv1.Cluster, role string) (cnpgv1.RoleConfiguration, bool) {
	if cc == nil || cc.Spec.Managed == nil {
		return cnpgv1.RoleConfiguration{}, false
	}
	for _, r := range cc.Spec.Managed.Roles {
		if r.Name == role {
			return r, true
		}
	}
	return cnpgv1.RoleConfiguration{}, false
}

// otherRoleObject is a DatabaseRole of another name that manages w's role
// on w's cluster (ByRoleOnCluster), if any.
func (p *pass) otherRoleObject(w roleWant) *cnpgv1.DatabaseRole {
	for _, r := range p.deps.roleObjectsOf(clusterNS(p.db), w.cluster, w.role) {
		if r.Name != w.object {
			return r
		}
	}
	return nil
}
