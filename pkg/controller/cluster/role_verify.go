package cluster

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// verifyNewRoles keeps out of the plan every role that would start being
// managed now but exists in Postgres without setpoint's marker for its
// claimant: CNPG would otherwise take it over (new password, and drop it
// on a Delete). A role that carries the marker of the same
// PostgresDatabase was created by setpoint for it (and possibly retained),
// so it may be managed again; so may one marked for the object its
// spec.adoptFrom names (mayManageExisting). Only roles that change hands
// are checked — not in the CNPG Cluster's managed list yet, or given last
// pass to another object (a retained role still listed when its next
// claimant comes) — so a converged cluster runs no SQL.
//
// When Postgres cannot be asked, the new roles wait (err is returned for
// status) and the rest of the plan is applied.
func verifyNewRoles(ctx context.Context, p *pass, plan *rolePlan, current []cnpgv1.RoleConfiguration) error {
	previous := previousOwners(p)
	var fresh []string
	for _, r := range plan.roles {
		i := slices.IndexFunc(current, func(c cnpgv1.RoleConfiguration) bool { return c.Name == r.Name })
		owner := plan.ownerOf(r.Name)
		prev, had := previous[r.Name]
		if r.Ensure == cnpgv1.EnsureAbsent || i >= 0 && had && prev == owner {
			continue
		}
		if i >= 0 && current[i].Comment == controller.PostgresMarker(p.cluster.Namespace, owner.Name) {
			// Already handed to CNPG with this claimant's marker, after a
			// check of an earlier pass whose status write was lost: CNPG
			// may be creating it right now (role first, comment next), so
			// asking Postgres again could catch it half made.
			continue
		}
		fresh = append(fresh, r.Name)
	}
	if len(fresh) == 0 {
		return nil
	}
	lookup := p.deps.roleComments
	if p.deps.lookupRoles != nil {
		lookup = p.deps.lookupRoles
	}
	comments, err := lookup(ctx, p, fresh)
	if err != nil {
		for _, name := range fresh {
			plan.drop(name)
		}
		return fmt.Errorf("cannot check in Postgres whether roles %v already exist: %w", fresh, err)
	}
	for _, name := range fresh {
		comment, exists := comments[name]
		if !exists {
			continue
		}
		owner := plan.ownerOf(name)
		ok, why := mayManageExisting(ctx, p, owner, name, comment)
		if ok {
			continue // setpoint's, for this PostgresDatabase or the one it adopts from
		}
		plan.drop(name)
		plan.conflicts = append(plan.conflicts, pgv1.RoleConflict{Role: name, Claimant: owner, Message: why})
		klog.FromContext(ctx).V(2).Info("Refused to manage a role setpoint did not create", "role", name, "claimant", owner.Name)
		handOver(ctx, p, plan, name, comment, owner)
	}
	return nil
}

// drop removes a role from the plan (roles and owners).
func (pl *rolePlan) drop(role string) {
	pl.roles = slices.DeleteFunc(pl.roles, func(r cnpgv1.RoleConfiguration) bool { return r.Name == role })
	pl.owners = slices.DeleteFunc(pl.owners, func(o pgv1.RoleOwner) bool { return o.Role == role })
	pl.conflicts = slices.DeleteFunc(pl.conflicts, func(c pgv1.RoleConflict) bool { return c.Role == role && c.Owner.Name != "" })
}

func (pl *rolePlan) ownerOf(role string) pgv1.ObjectOwner {
	for _, o := range pl.owners {
		if o.Role == role {
			return o.Owner
		}
	}
	return pgv1.ObjectOwner{}
}

// roleComments returns, for each of names that exists on the cluster's
// server, its comment ("" when none).
func (d *deps) roleComments(ctx context.Context, p *pass, names []string) (map[string]string, error) {
	conn, err := p.superuserConn(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, d.pgTimeout)
	defer cancel()
	rows, err := conn.Query(ctx,
		"SELECT rolname::text, coalesce(shobj_description(oid, 'pg_authid'), '') FROM pg_roles WHERE rolname = ANY($1)", names)
	if err != nil {
		return nil, fmt.Errorf("read roles: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, comment string
		if err := rows.Scan(&name, &comment); err != nil {
			return nil, fmt.Errorf("read roles: %w", err)
		}
		out[name] = comment
	}
	return out, rows.Err()
}
