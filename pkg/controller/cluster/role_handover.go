package cluster

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// handOver gives role, which Postgres has with comment and which was just
// refused to refused (the first claimant in line), to the next claimant
// that comment lets manage it — typically a PostgresDatabase with
// spec.adoptFrom created after one without it. Without this, the refused
// claimant would stay first in line and hold the role from its rightful
// taker for as long as it exists. Each claimant the comment refuses gets
// its own conflict saying why (the same check, no more SQL), every other
// one a conflict naming the new owner.
func handOver(ctx context.Context, p *pass, plan *rolePlan, role, comment string, refused pgv1.ObjectOwner) {
	var taker *roleClaim
	settled := []pgv1.ObjectOwner{refused}
	for i, c := range plan.claims[role] {
		if c.owner == refused {
			continue
		}
		ok, why := mayManageExisting(ctx, p, c.owner, role, comment)
		if !ok {
			plan.conflicts = append(plan.conflicts, pgv1.RoleConflict{Role: role, Claimant: c.owner, Message: why})
			settled = append(settled, c.owner)
			continue
		}
		if taker == nil {
			taker = &plan.claims[role][i]
		}
	}
	if taker == nil {
		return
	}
	plan.give(p.cluster.Namespace, *taker, settled)
	klog.FromContext(ctx).V(2).Info("Handed a refused role to the next claimant", "role", role, "claimant", taker.owner.Name)
}

// give makes c the owner of its role in the plan, keeping the plan's
// order (by role name), with conflicts for the other claimants but those
// already settled.
func (pl *rolePlan) give(namespace string, c roleClaim, settled []pgv1.ObjectOwner) {
	role := c.role.Name
	cfg := roleConfig(namespace, c)
	i, _ := slices.BinarySearchFunc(pl.roles, role, func(r cnpgv1.RoleConfiguration, name string) int { return cmp.Compare(r.Name, name) })
	pl.roles = slices.Insert(pl.roles, i, cfg)
	j, _ := slices.BinarySearchFunc(pl.owners, role, func(o pgv1.RoleOwner, name string) int { return cmp.Compare(o.Role, name) })
	pl.owners = slices.Insert(pl.owners, j, pgv1.RoleOwner{Role: role, Owner: c.owner})
	for _, o := range pl.claims[role] {
		if o.owner != c.owner && !slices.Contains(settled, o.owner) {
			pl.conflicts = append(pl.conflicts, pgv1.RoleConflict{Role: role, Owner: c.owner, Claimant: o.owner,
				Message: fmt.Sprintf("role %s is owned by PostgresDatabase %q", role, c.owner.Name)})
		}
	}
}
