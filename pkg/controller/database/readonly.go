package database

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// removeReadOnly carries out the removal of readOnlyRole from database d,
// as its deletionPolicy says; previous are the roles its status entry
// listed before this pass. That listing is the record of work left: the
// role stays in it (present, then absent) until the removal is complete,
// so a pass after that does nothing — no API write, no SQL.
//
// Retain stops asking for the role (CNPG then leaves it in place) and
// releases its generated Secret for a later readOnlyRole: true. Delete
// revokes the role's privileges (Postgres refuses to drop a role that
// holds some), publishes it absent for the cluster, waits until Postgres
// no longer has it, and deletes its generated Secret. A user's Secret
// (passwordConfig.roSecretRef) is never touched.
func (p *pass) removeReadOnly(ctx context.Context, d pgv1.DatabaseSpec, n names, previous []pgv1.RoleStatus) ([]pgv1.RoleStatus, health) {
	i := slices.IndexFunc(previous, func(r pgv1.RoleStatus) bool { return r.Name == n.RORole })
	if i < 0 {
		return nil, ready("", "")
	}
	prev := previous[i]
	secret := p.obs.secrets[n.ROSecret]
	ours := secret != nil && controller.IsControlledBy(secret, p.db.UID)
	if policyOf(d) == pgv1.DeletionPolicyRetain {
		if ours {
			if err := p.releaseSecret(ctx, secret); err != nil {
				return []pgv1.RoleStatus{prev}, apiError("ReleaseFailed", err)
			}
		}
		return nil, ready("", "")
	}
	if p.clusterOwns(n.RORole) {
		if prev.Ensure != pgv1.RoleEnsureAbsent {
			return p.revokeReadOnly(ctx, n, prev)
		}
		if h := p.readOnlyGone(ctx, n.RORole); h.Phase != pgv1.PhaseReady {
			return []pgv1.RoleStatus{prev}, h
		}
	}
	if ours {
		if err := p.c.kube.CoreV1().Secrets(p.db.Namespace).Delete(ctx, n.ROSecret, controller.DeleteOf(secret)); err != nil && !apierrors.IsNotFound(err) {
			return []pgv1.RoleStatus{prev}, apiError("SecretDeleteFailed", fmt.Errorf("delete Secret %s: %w", n.ROSecret, err))
		}
	}
	return nil, ready("", "")
}

// revokeReadOnly revokes what the grant plan gave the read-only role,
// then marks it absent: the cluster passes that on once status is written.
func (p *pass) revokeReadOnly(ctx context.Context, n names, prev pgv1.RoleStatus) ([]pgv1.RoleStatus, health) {
	t, err := p.superuser(ctx, n.DB)
	if err == nil {
		err = p.c.sql.execTx(ctx, t, revokeReadOnlyPlan(n))
		if err != nil {
			p.c.cas.Forget(p.db.Namespace, p.obs.cluster.Name+caSuffix)
		}
	}
	if err != nil {
		return []pgv1.RoleStatus{prev}, readOnlyWait(true, fmt.Sprintf("cannot revoke the privileges of role %s: %v", n.RORole, err))
	}
	absent := pgv1.RoleStatus{Name: n.RORole, Ensure: pgv1.RoleEnsureAbsent, Exists: prev.Exists}
	return []pgv1.RoleStatus{absent}, readOnlyWait(false, fmt.Sprintf("marking role %s absent for the cluster", n.RORole))
}

// readOnlyGone is Ready once the role, published absent, is dropped:
// CNPG reports it reconciled and Postgres no longer has it.
func (p *pass) readOnlyGone(ctx context.Context, role string) health {
	if msg, failed := p.obs.roles.failure(role); failed {
		return readOnlyWait(true, fmt.Sprintf("CloudNativePG cannot drop role %s: %s", role, msg))
	}
	if !p.obs.roles.isReconciled(role) {
		return readOnlyWait(false, fmt.Sprintf("waiting for CloudNativePG to drop role %s", role))
	}
	t, err := p.superuser(ctx, "postgres")
	var left []string
	if err == nil {
		left, err = p.c.sql.existingRoles(ctx, t, []string{role})
	}
	if err != nil {
		return readOnlyWait(true, fmt.Sprintf("cannot verify that role %s is dropped: %v", role, err))
	}
	if len(left) > 0 {
		return readOnlyWait(false, fmt.Sprintf("waiting for CloudNativePG to drop role %s", role))
	}
	return ready("", "")
}

// clusterOwns reports whether the cluster gave role to this object.
func (p *pass) clusterOwns(role string) bool {
	return p.obs.roles.owns(role, ownerOfDB(p.db))
}

// readOnlyWait is a wait of the read-only role's removal: the database is
// Provisioning (it is being changed, not deleted).
func readOnlyWait(blocked bool, msg string) health {
	reason := "RoleCleanupPending"
	if blocked {
		reason = "RoleCleanupBlocked"
	}
	return waiting(pgv1.PhaseProvisioning, reason, msg, cleanupRecheck)
}
