package database

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// blockedAfter is how long a deletion may wait for CNPG before the wait
// is reported as RoleCleanupBlocked rather than as progress.
const blockedAfter = 2 * time.Minute

// dropRoles removes a database's roles (Delete), the fixed ones and its
// extra roles (knownRoles), and reports Ready once they are gone. Only roles of our own DatabaseRoles, or that Postgres
// has with our marker, are dropped: one another PostgresDatabase manages
// (we lost a conflict) or one that existed before setpoint is skipped.
// The status entry lists the roles still being removed, each absent.
func (p *pass) dropRoles(ctx context.Context, name string) health {
	e := p.entries[name]
	prev := e.Roles
	e.Roles = nil
	var waits []health
	for _, r := range p.obs.roleNames[name] {
		h, done := p.removeRole(ctx, r, pgv1.DeletionPolicyDelete, listed(p.db.Status.Databases, name, r))
		if done {
			continue
		}
		exists := slices.ContainsFunc(prev, func(s pgv1.RoleStatus) bool { return s.Name == r && s.Exists })
		e.Roles = append(e.Roles, pgv1.RoleStatus{Name: r, Ensure: pgv1.RoleEnsureAbsent, Exists: exists})
		waits = append(waits, h)
	}
	return worst(waits)
}

// listed: the stored status entry of database name lists role, present or
// absent — the one case a role without a DatabaseRole of ours may still be
// ours in Postgres (an object CNPG deleted without dropping the role, or
// one an earlier setpoint kept in managed.roles). It decides only whether
// to look: Postgres's marker decides whether the role is ours.
func listed(st []pgv1.DatabaseStatus, name, role string) bool {
	i := slices.IndexFunc(st, func(d pgv1.DatabaseStatus) bool { return d.Name == name })
	return i >= 0 && slices.ContainsFunc(st[i].Roles, func(r pgv1.RoleStatus) bool { return r.Name == role })
}

// removeRole carries out policy on one role: its DatabaseRole is given
// the matching reclaim policy, then deleted, and CNPG's finalizer keeps or
// drops the role. A Retain is done once the deletion is asked for: the
// role stays in Postgres with our marker, for a later PostgresDatabase of
// this name (or one adopting from it) to manage again. A Delete waits until CNPG applied the object first —
// CNPG drops only a role its object applied — and ends when Postgres no
// longer has the role with our marker (look says whether to ask). done is
// true once nothing is left to do.
func (p *pass) removeRole(ctx context.Context, role string, policy pgv1.DeletionPolicy, look bool) (h health, done bool) {
	obj := naming.RoleObject(p.db.Spec.ClusterRef.Name, role)
	cur := p.obs.roles[obj]
	if cur != nil && !ownsClusterSide(cur, p.db) {
		return ready("", ""), true // someone else's: not ours to remove
	}
	reclaim := roleReclaim(policy)
	switch {
	case cur == nil && policy == pgv1.DeletionPolicyRetain:
		return ready("", ""), true
	case cur == nil:
		return p.droppedInPostgres(ctx, role, look)
	case cur.DeletionTimestamp != nil && policy == pgv1.DeletionPolicyRetain:
		return ready("", ""), true // reclaim retain: CNPG only lets the object go
	case cur.DeletionTimestamp != nil:
		if st := cur.Status; st.Applied != nil && !*st.Applied && st.Message != "" {
			return p.roleWait(true, fmt.Sprintf("CloudNativePG cannot remove role %s: %s", role, st.Message)), false
		}
		return p.roleWait(false, fmt.Sprintf("waiting for CloudNativePG to remove role %s", role)), false
	case cur.Spec.DatabaseRoleReclaimPolicy != reclaim:
		if _, err := p.deps.pg.CNPGV1().DatabaseRoles(clusterNS(p.db)).Apply(ctx, roleApply(p.db, wantOf(cur, reclaim)), applyOpts); err != nil {
			return apiError(pgv1.ReasonRoleApplyFailed, fmt.Errorf("apply DatabaseRole %s: %w", obj, err)), false
		}
		return p.roleWait(false, fmt.Sprintf("setting the reclaim policy of DatabaseRole %q to %s", obj, reclaim)), false
	case policy == pgv1.DeletionPolicyDelete && !roleApplied(cur):
		return p.roleWait(false, fmt.Sprintf("waiting for CloudNativePG to apply DatabaseRole %q before it drops role %s", obj, role)), false
	}
	if err := p.deps.pg.CNPGV1().DatabaseRoles(clusterNS(p.db)).Delete(ctx, obj, ownership.DeleteOf(cur)); err != nil && !apierrors.IsNotFound(err) {
		return apiError(pgv1.ReasonRoleDeleteFailed, fmt.Errorf("delete DatabaseRole %s: %w", obj, err)), false
	}
	if policy == pgv1.DeletionPolicyRetain {
		return ready("", ""), true
	}
	p.deps.recorder.Eventf(p.db, corev1.EventTypeNormal, pgv1.EventRoleDeleting, "Deleted DatabaseRole %s; CloudNativePG drops role %s", obj, role)
	return p.roleWait(false, fmt.Sprintf("waiting for CloudNativePG to remove role %s", role)), false
}

// droppedInPostgres ends a Delete whose DatabaseRole is gone: the role is
// done when Postgres does not have it with our marker. One it still has
// gets a DatabaseRole with reclaim delete again (CNPG takes the role over
// and drops it with the object); a role marked for anyone else is theirs.
func (p *pass) droppedInPostgres(ctx context.Context, role string, look bool) (health, bool) {
	if !look {
		return ready("", ""), true
	}
	t, err := p.monitor(ctx)
	var comments map[string]string
	if err == nil {
		comments, err = p.deps.sql.roleComments(ctx, t, []string{role})
	}
	if err != nil {
		p.deps.cas.Forget(clusterNS(p.db), naming.CASecret(p.obs.cluster.Name))
		return p.roleWait(true, fmt.Sprintf("cannot verify that role %s is dropped: %v", role, err)), false
	}
	if comment, ok := comments[role]; !ok || comment != ownership.PostgresMarker(p.db.Namespace, p.db.Name) {
		return ready("", ""), true
	}
	w := roleWant{object: naming.RoleObject(p.obs.cluster.Name, role), cluster: p.obs.cluster.Name, role: role, reclaim: roleReclaim(pgv1.DeletionPolicyDelete)}
	if h := p.claimRole(ctx, w); h.Phase != pgv1.PhaseReady {
		return p.roleWait(true, fmt.Sprintf("role %s is still in Postgres: %s", role, h.Message)), false
	}
	if h := p.createRole(ctx, w); h.Phase == pgv1.PhaseFailed || h.Err != nil {
		return h, false
	}
	return p.roleWait(false, fmt.Sprintf("role %s is still in Postgres: handing it to DatabaseRole %q to drop it", role, w.object)), false
}

// roleWait reports a wait on role removal; it is Blocked when something is
// wrong or the object's deletion has waited long.
func (p *pass) roleWait(blocked bool, msg string) health {
	return p.cleanupWait(pgv1.ReasonRoleCleanupPending, pgv1.ReasonRoleCleanupBlocked, blocked, msg)
}

// dropWait reports a wait for CNPG to drop a database, escalating the
// same way.
func (p *pass) dropWait(msg string) health {
	return p.cleanupWait(pgv1.ReasonDatabaseCleanupPending, pgv1.ReasonDatabaseCleanupBlocked, false, msg)
}

// cleanupWait is a wait of the Delete policy on Postgres. It names the
// cluster's own trouble when it has some — a cluster that is not Ready is
// the usual reason CNPG does not act — rather than only saying "blocked".
func (p *pass) cleanupWait(pendingReason, blockedReason string, blocked bool, msg string) health {
	if dt := p.db.DeletionTimestamp; dt != nil && p.deps.clock.Since(dt.Time) > blockedAfter {
		blocked = true
	}
	if pc := p.obs.cluster; pc != nil && pc.Status.Phase != pgv1.PhaseReady {
		msg += fmt.Sprintf("; PostgresCluster %q is %s", pc.Name, pc.Status.Phase)
		if c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionReady); c != nil && c.Message != "" {
			msg += fmt.Sprintf(" (%s: %s)", c.Reason, c.Message)
		}
	}
	reason := pendingReason
	if blocked {
		reason = blockedReason
	}
	return waiting(pgv1.PhaseDeleting, reason, msg, cleanupRecheck)
}
