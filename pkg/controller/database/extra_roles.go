package database

import (
	"context"
	"slices"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// removeExtraRoles removes, as d's deletionPolicy says, every extra role
// of d the spec no longer declares but setpoint made (knownRoles: its
// status entry lists it, or a DatabaseRole of ours has it), the way
// removeReadOnly removes the read-only role: Delete revokes its
// privileges, has CNPG drop it and deletes its generated Secret; Retain
// lets go of the DatabaseRole with reclaim retain and releases the
// Secret. previous are the roles the entry listed before this pass.
func (p *pass) removeExtraRoles(ctx context.Context, d pgv1.DatabaseSpec, n names, previous []pgv1.RoleStatus) ([]pgv1.RoleStatus, health) {
	declared := map[string]bool{}
	for _, r := range n.Roles() {
		declared[r] = true // the fixed roles go their own ways
	}
	for _, c := range credentialsOf(d, n) {
		declared[c.role] = true
	}
	var kept []pgv1.RoleStatus
	var hs []health
	for _, role := range p.obs.roleNames[d.Name] {
		if declared[role] {
			continue
		}
		prev := pgv1.RoleStatus{Name: role, Ensure: pgv1.RoleEnsureAbsent}
		if i := slices.IndexFunc(previous, func(r pgv1.RoleStatus) bool { return r.Name == role }); i >= 0 {
			prev = previous[i]
		} else if cur := p.obs.roles[naming.RoleObject(p.db.Spec.ClusterRef.Name, role)]; cur != nil {
			prev.Exists = roleApplied(cur)
		}
		k, h := p.withdrawRole(ctx, d, prev, secretsOf(n, []string{role}), func() error { return p.revokeExtra(ctx, d, n, role) })
		kept = append(kept, k...)
		hs = append(hs, h)
	}
	return kept, worst(hs)
}

// revokeExtra revokes, as the database's owner, every privilege role — an
// extra role the spec no longer declares — holds in database d, and the
// default privileges it gives the database's roles on what it creates:
// Postgres refuses to drop a role that holds or gives either. It is the
// database's plan with role held to nothing (grantplan.Withdrawn), so what
// the spec declares is kept, and brought in line if it was not.
func (p *pass) revokeExtra(ctx context.Context, d pgv1.DatabaseSpec, n names, role string) error {
	t, err := p.asAdmin(ctx, d, n)
	if err != nil {
		return err
	}
	w := grantplan.Withdrawn(d, n, role)
	cat, err := p.deps.sql.grants(ctx, t, w)
	if err != nil {
		p.deps.cas.Forget(clusterNS(p.db), naming.CASecret(p.obs.cluster.Name))
		return err
	}
	stmts := grantplan.Plan(w, cat).Statements
	if len(stmts) == 0 {
		return nil
	}
	if err := p.deps.sql.execTx(ctx, t, stmts); err != nil {
		p.deps.cas.Forget(clusterNS(p.db), naming.CASecret(p.obs.cluster.Name))
		return err
	}
	return nil
}

// adminMemberships are the extra roles of database d the database's
// owner is a member of, so that acting as it setpoint can create their
// schemas, grant on what they own and set their default privileges: each
// role setpoint made for d beyond the fixed ones whose DatabaseRole is
// ours, live and applied by CloudNativePG — a role not yet in Postgres
// would fail the owner's own DatabaseRole — including one being removed
// until its DatabaseRole goes (its privileges are revoked as the owner).
// Sorted: the order CNPG is given, and the one compared.
func (p *pass) adminMemberships(d pgv1.DatabaseSpec, n names) []string {
	var out []string
	for _, role := range p.obs.roleNames[d.Name] {
		if slices.Contains(n.Roles(), role) || !p.roleLive(role) {
			continue
		}
		if roleApplied(p.obs.roles[naming.RoleObject(p.db.Spec.ClusterRef.Name, role)]) {
			out = append(out, role)
		}
	}
	slices.Sort(out)
	return out
}
