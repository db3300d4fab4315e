package cluster

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// managedRolesComponent is the single writer of the CNPG Cluster's
// spec.managed.roles. PostgresDatabases publish the roles they want in
// their status; the first claimant of a role owns it (recorded by name and
// UID), later claimants are reported as conflicts and get nothing.
type managedRolesComponent struct{}

func (managedRolesComponent) Name() string      { return "managedRoles" }
func (managedRolesComponent) Condition() string { return pgv1.ConditionManagedRoles }
func (managedRolesComponent) Requires() []contractKey {
	return []contractKey{contractCNPGCluster, contractSecret}
}
func (managedRolesComponent) Provides() []contractKey { return nil }

// claim is one PostgresDatabase asking for one role.
type roleClaim struct {
	owner pgv1.ObjectOwner
	db    *pgv1.PostgresDatabase
	role  roleIntent
}

// rolePlan is the arbitration of every claim.
type rolePlan struct {
	roles     []cnpgv1.RoleConfiguration
	owners    []pgv1.RoleOwner
	conflicts []pgv1.RoleConflict
	// claims are each role's claimants in order of precedence, for
	// handOver when Postgres refuses the winner.
	claims map[string][]roleClaim
}

func (managedRolesComponent) Reconcile(ctx context.Context, p *pass) error {
	plan := planRoles(p)
	p.roles = &plan
	var cur []cnpgv1.RoleConfiguration
	if m := p.contracts.CNPGCluster.Spec.Managed; m != nil {
		cur = m.Roles
	}
	p.rolesUnverified = verifyNewRoles(ctx, p, &plan, cur)
	if rolesEqual(cur, plan.roles) {
		return nil
	}
	roles := make([]*cnpgac.RoleConfigurationApplyConfiguration, len(plan.roles))
	for i, r := range plan.roles {
		ac := cnpgac.RoleConfiguration().WithName(r.Name).WithEnsure(r.Ensure).WithComment(r.Comment).
			WithLogin(*r.Login).WithInherit(*r.Inherit).WithConnectionLimit(*r.ConnectionLimit)
		if r.PasswordSecret != nil {
			ac.WithPasswordSecret(cnpgac.LocalObjectReference().WithName(r.PasswordSecret.Name))
		}
		roles[i] = ac
	}
	ac := cnpgac.Cluster(p.cluster.Name, p.cluster.Namespace).
		WithSpec(cnpgac.ClusterSpec().WithManaged(cnpgac.ManagedConfiguration().WithRoles(roles...)))
	body, err := json.Marshal(ac)
	if err != nil {
		return fmt.Errorf("encode managed roles: %w", err)
	}
	if len(roles) == 0 {
		// An explicit empty list: the apply configuration would omit it,
		// and releasing the field leaves "managed: null", which CNPG's
		// schema refuses.
		body = fmt.Appendf(nil, `{"apiVersion":"postgresql.cnpg.io/v1","kind":"Cluster","metadata":{"name":%q,"namespace":%q},"spec":{"managed":{"roles":[]}}}`,
			p.cluster.Name, p.cluster.Namespace)
	}
	applied, err := p.deps.pg.CNPGV1().Clusters(p.cluster.Namespace).Patch(ctx, p.cluster.Name, types.ApplyPatchType, body,
		metav1.PatchOptions{FieldManager: rolesFieldManager, Force: ptr.To(true)})
	if err != nil {
		return fmt.Errorf("apply managed roles: %w", err)
	}
	p.contracts.CNPGCluster = applied
	p.deps.pace.applied(workqueue.Key{Namespace: p.cluster.Namespace, Name: p.cluster.Name})
	return nil
}

func (managedRolesComponent) Observe(_ context.Context, p *pass, err error) health {
	if err != nil {
		return waiting(pgv1.PhasePending, "RolesApplyFailed", err.Error(), 0)
	}
	st := rolesStatus(p)
	p.status.ManagedRolesStatus = st
	if st == nil {
		return ready("NoRoles", "no PostgresDatabase asks for roles")
	}
	msg := fmt.Sprintf("%d role(s) given to PostgresDatabases, %d claim(s) refused", len(st.Owners), len(st.Conflicts))
	if p.rolesUnverified != nil {
		// New roles wait until Postgres says they are not someone else's.
		h := ready("RolesUnverified", msg+"; "+p.rolesUnverified.Error())
		h.RequeueAfter = provisionRecheck
		return h
	}
	// Roles are each PostgresDatabase's concern: their gate reads this
	// status. The cluster itself stays Ready.
	return ready("RolesApplied", msg)
}

// previousOwners is who the last pass gave each role to (the cluster's
// status): the owner keeps its role, and a role changing hands is checked.
func previousOwners(p *pass) map[string]pgv1.ObjectOwner {
	previous := map[string]pgv1.ObjectOwner{}
	if st := p.status.ManagedRolesStatus; st != nil {
		for _, o := range st.Owners {
			previous[o.Role] = o.Owner
		}
	}
	return previous
}

// planRoles arbitrates the claims of every PostgresDatabase on the
// cluster; intent comes from each one's spec (see intentOf).
func planRoles(p *pass) rolePlan {
	previous := previousOwners(p)
	claims := map[string][]roleClaim{}
	for _, db := range p.obs.databases {
		owner := pgv1.ObjectOwner{Name: db.Name, UID: db.UID}
		owned := func(role string) bool { return previous[role] == owner }
		for _, r := range intentOf(db, owned, p.obs.placedFor(db)) {
			claims[r.Name] = append(claims[r.Name], roleClaim{owner: owner, db: db, role: r})
		}
	}
	plan := rolePlan{claims: claims}
	for _, name := range slices.Sorted(maps.Keys(claims)) {
		cs := claims[name]
		slices.SortFunc(cs, func(a, b roleClaim) int {
			if c := a.db.CreationTimestamp.Compare(b.db.CreationTimestamp.Time); c != 0 {
				return c
			}
			return cmp.Compare(a.owner.Name, b.owner.Name)
		})
		winner := cs[0]
		if prev, ok := previous[name]; ok {
			if i := slices.IndexFunc(cs, func(c roleClaim) bool { return c.owner == prev }); i >= 0 {
				winner = cs[i]
			}
		}
		plan.owners = append(plan.owners, pgv1.RoleOwner{Role: name, Owner: winner.owner})
		for _, c := range cs {
			if c.owner != winner.owner {
				plan.conflicts = append(plan.conflicts, pgv1.RoleConflict{Role: name, Owner: winner.owner, Claimant: c.owner,
					Message: fmt.Sprintf("role %s is owned by PostgresDatabase %q", name, winner.owner.Name)})
			}
		}
		plan.roles = append(plan.roles, roleConfig(p.cluster.Namespace, winner))
	}
	return plan
}

func roleConfig(namespace string, c roleClaim) cnpgv1.RoleConfiguration {
	r := cnpgv1.RoleConfiguration{
		Name:            c.role.Name,
		Ensure:          cnpgv1.EnsureOption(c.role.Ensure),
		Comment:         controller.PostgresMarker(namespace, c.owner.Name),
		Login:           ptr.To(true),
		Inherit:         ptr.To(true),
		ConnectionLimit: ptr.To[int64](-1),
	}
	if c.role.Secret != "" && c.role.Ensure != pgv1.RoleEnsureAbsent {
		r.PasswordSecret = &cnpgv1.LocalObjectReference{Name: c.role.Secret}
	}
	return r
}

// rolesEqual compares the fields we set, in order (we always sort).
func rolesEqual(cur, want []cnpgv1.RoleConfiguration) bool {
	return slices.EqualFunc(cur, want, func(a, b cnpgv1.RoleConfiguration) bool {
		ensure := a.Ensure
		if ensure == "" {
			ensure = cnpgv1.EnsurePresent
		}
		return a.Name == b.Name && ensure == b.Ensure && a.Comment == b.Comment &&
			ptr.Deref(a.Login, false) == *b.Login && ptr.Deref(a.Inherit, true) == *b.Inherit &&
			ptr.Deref(a.ConnectionLimit, -1) == *b.ConnectionLimit &&
			(a.PasswordSecret == nil) == (b.PasswordSecret == nil) &&
			(a.PasswordSecret == nil || a.PasswordSecret.Name == b.PasswordSecret.Name)
	})
}

// rolesStatus records the arbitration: owners and conflicts. CNPG's
// view of each role is read by the PostgresDatabases from the CNPG
// Cluster itself (see ManagedRolesStatus).
func rolesStatus(p *pass) *pgv1.ManagedRolesStatus {
	plan := p.roles
	if plan == nil || len(plan.roles) == 0 && len(plan.conflicts) == 0 {
		return nil
	}
	return &pgv1.ManagedRolesStatus{Owners: plan.owners, Conflicts: plan.conflicts}
}
