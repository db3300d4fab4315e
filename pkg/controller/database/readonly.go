package database

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// removeReadOnly carries out the removal of readOnlyRole from database d,
// as its deletionPolicy says; previous are the roles its status entry
// listed before this pass. That listing is the record of work left: the
// role stays in it (present, then absent) until the removal is complete,
// so a pass after that does nothing — no API write, no SQL.
//
// Retain deletes the role's DatabaseRole with reclaim retain (CNPG then
// leaves the role in place) and releases its generated Secret for a later
// readOnlyRole: true. Delete revokes the role's privileges (Postgres
// refuses to drop a role that holds some), deletes the DatabaseRole with
// reclaim delete, waits until Postgres no longer has the role, and deletes
// its generated Secret. A user's Secret (passwordConfig.roSecretRef) is
// never touched.
func (p *pass) removeReadOnly(ctx context.Context, d pgv1.DatabaseSpec, n names, previous []pgv1.RoleStatus) ([]pgv1.RoleStatus, health) {
	i := slices.IndexFunc(previous, func(r pgv1.RoleStatus) bool { return r.Name == n.RORole })
	if i < 0 {
		return nil, ready("", "")
	}
	return p.withdrawRole(ctx, d, previous[i], secretsOf(n, []string{n.RORole}), func() error { return p.revokeReadOnly(ctx, d, n) })
}

// withdrawRole removes one role database d no longer declares, as its
// deletionPolicy says; prev is how its status entry listed it, secrets
// the Secrets setpoint makes for it (secretsOf), revoke what takes its privileges in the database
// (Postgres refuses to drop a role that holds some). It returns what the
// entry lists of the role while the removal is not complete.
func (p *pass) withdrawRole(ctx context.Context, d pgv1.DatabaseSpec, prev pgv1.RoleStatus, secrets []string, revoke func() error) ([]pgv1.RoleStatus, health) {
	role := prev.Name
	if p.obs.cluster == nil {
		// Nothing is removed without the cluster (see cleanup): the entry
		// keeps the work for when it is back, and the cluster step says so.
		return []pgv1.RoleStatus{prev}, ready("", "")
	}
	absent := []pgv1.RoleStatus{{Name: role, Ensure: pgv1.RoleEnsureAbsent, Exists: prev.Exists}}
	policy := policyOf(d)
	if policy == pgv1.DeletionPolicyDelete && p.roleLive(role) {
		if err := revoke(); err != nil {
			return absent, readOnlyWait(true, fmt.Sprintf("cannot revoke the privileges of role %s: %v", role, err))
		}
	}
	if h, done := p.removeRole(ctx, role, policy, true); !done {
		h.Phase = pgv1.PhaseProvisioning // a change of the database, not its deletion
		return absent, h
	}
	for _, name := range secrets {
		secret := p.obs.secrets[name]
		if secret == nil || !ownership.IsControlledBy(secret, p.db.UID) {
			continue
		}
		if policy == pgv1.DeletionPolicyRetain {
			if err := p.releaseSecret(ctx, secret); err != nil {
				return absent, apiError(pgv1.ReasonReleaseFailed, err)
			}
			continue
		}
		if err := p.deps.kube.CoreV1().Secrets(p.db.Namespace).Delete(ctx, name, ownership.DeleteOf(secret)); err != nil && !apierrors.IsNotFound(err) {
			return absent, apiError(pgv1.ReasonSecretDeleteFailed, fmt.Errorf("delete Secret %s: %w", name, err))
		}
	}
	return nil, ready("", "")
}

// roleLive: our DatabaseRole of role exists and is not being deleted —
// the role may still hold privileges.
func (p *pass) roleLive(role string) bool {
	cur := p.obs.roles[naming.RoleObject(p.db.Spec.ClusterRef.Name, role)]
	return cur != nil && ownsClusterSide(cur, p.db) && cur.DeletionTimestamp == nil
}

// revokeReadOnly revokes, as the database's owner, what the grant plan
// gave the read-only role.
func (p *pass) revokeReadOnly(ctx context.Context, d pgv1.DatabaseSpec, n names) error {
	t, err := p.asAdmin(ctx, d, n)
	if err != nil {
		return err
	}
	// What <db>_ro holds beyond public (the declared schemas, a grant of
	// spec.roles' ro entry): the planner, with the role held to nothing.
	w := grantplan.Declared(d, n)
	w.Roles, w.Managed = []string{n.RORole}, append(w.Managed, n.RORole)
	w.Schemas, w.Grants, w.Defaults = nil, nil, nil
	cat, err := p.deps.sql.grants(ctx, t, w)
	if err != nil {
		p.deps.cas.Forget(clusterNS(p.db), naming.CASecret(p.obs.cluster.Name))
		return err
	}
	stmts := append(revokeReadOnlyPlan(n), grantplan.Plan(w, cat).Statements...)
	if err := p.deps.sql.execTx(ctx, t, stmts); err != nil {
		p.deps.cas.Forget(clusterNS(p.db), naming.CASecret(p.obs.cluster.Name))
		return err
	}
	return nil
}

// readOnlyWait is a wait of the read-only role's removal: the database is
// Provisioning (it is being changed, not deleted).
func readOnlyWait(blocked bool, msg string) health {
	reason := pgv1.ReasonRoleCleanupPending
	if blocked {
		reason = pgv1.ReasonRoleCleanupBlocked
	}
	return waiting(pgv1.PhaseProvisioning, reason, msg, cleanupRecheck)
}
