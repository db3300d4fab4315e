package database

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// blockedAfter is how long a deletion may wait for CNPG before the wait
// is reported as RoleCleanupBlocked rather than as progress.
const blockedAfter = 2 * time.Minute

// dropRoles publishes a database's roles as absent and reports Ready once
// they are gone. Only roles the cluster records as ours are dropped: one
// another PostgresDatabase owns (we lost a conflict) or one that existed in
// Postgres before setpoint is skipped.
//
// "Gone" is checked three ways, because no single signal suffices: our
// absent intent must have been persisted (so the cluster can act on it);
// the cluster must report the roles reconciled — for an absent role that
// means dropped, which is how CNPG lists it — and not failed; and Postgres
// itself must no longer have them, since CNPG's status has no
// observedGeneration and may still describe the roles as present.
func (p *pass) dropRoles(ctx context.Context, name string, n names) health {
	rep := p.obs.roles
	me := ownerOfDB(p.db)
	var roles []string
	for _, r := range n.Roles() {
		// Only roles the cluster gave us: one another PostgresDatabase
		// owns, or one Postgres had before setpoint, is not ours to drop.
		if rep.owns(r, me) {
			roles = append(roles, r)
		}
	}
	if len(roles) == 0 {
		return ready("", "")
	}
	e := p.entries[name]
	prev := e.Roles
	e.Roles = nil
	for _, r := range roles {
		// exists stays as last seen until the role is confirmed gone and
		// the entry disappears.
		exists := slices.ContainsFunc(prev, func(s pgv1.RoleStatus) bool { return s.Name == r && s.Exists })
		e.Roles = append(e.Roles, pgv1.RoleStatus{Name: r, Ensure: pgv1.RoleEnsureAbsent, Exists: exists})
	}
	list := strings.Join(roles, ", ")
	if !publishedAbsent(p.db.Status.Databases, name, roles) {
		return p.roleWait(false, fmt.Sprintf("marking roles %s absent for the cluster", list))
	}
	for _, r := range roles {
		if msg, failed := rep.failure(r); failed {
			return p.roleWait(true, fmt.Sprintf("CloudNativePG cannot drop role %s: %s", r, msg))
		}
	}
	if slices.ContainsFunc(roles, func(r string) bool { return !rep.isReconciled(r) }) {
		return p.roleWait(false, fmt.Sprintf("waiting for CloudNativePG to drop roles %s", list))
	}
	t, err := p.superuser(ctx, "postgres")
	if err != nil {
		return p.roleWait(true, fmt.Sprintf("cannot verify that roles %s are dropped: %v", list, err))
	}
	left, err := p.c.sql.existingRoles(ctx, t, roles)
	if err != nil {
		p.c.cas.Forget(p.db.Namespace, p.obs.cluster.Name+caSuffix)
		return p.roleWait(true, fmt.Sprintf("cannot verify that roles %s are dropped: %v", list, err))
	}
	if len(left) > 0 {
		return p.roleWait(false, fmt.Sprintf("waiting for CloudNativePG to drop roles %s", strings.Join(left, ", ")))
	}
	return ready("", "")
}

// roleWait reports a wait on role removal; it is Blocked when something is
// wrong or the object's deletion has waited long.
func (p *pass) roleWait(blocked bool, msg string) health {
	return p.cleanupWait("Role", blocked, msg)
}

// dropWait reports a wait for CNPG to drop a database, escalating the
// same way.
func (p *pass) dropWait(msg string) health {
	return p.cleanupWait("Database", false, msg)
}

// cleanupWait is a wait of the Delete policy on Postgres. It names the
// cluster's own trouble when it has some — a cluster that is not Ready is
// the usual reason CNPG does not act — rather than only saying "blocked".
func (p *pass) cleanupWait(what string, blocked bool, msg string) health {
	if dt := p.db.DeletionTimestamp; dt != nil && time.Since(dt.Time) > blockedAfter {
		blocked = true
	}
	if pc := p.obs.cluster; pc != nil && pc.Status.Phase != pgv1.PhaseReady {
		msg += fmt.Sprintf("; PostgresCluster %q is %s", pc.Name, pc.Status.Phase)
		if c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionReady); c != nil && c.Message != "" {
			msg += fmt.Sprintf(" (%s: %s)", c.Reason, c.Message)
		}
	}
	reason := what + "CleanupPending"
	if blocked {
		reason = what + "CleanupBlocked"
	}
	return waiting(pgv1.PhaseDeleting, reason, msg, cleanupRecheck)
}

// publishedAbsent reports whether the persisted status already marks the
// roles absent for database name.
func publishedAbsent(st []pgv1.DatabaseStatus, name string, roles []string) bool {
	i := slices.IndexFunc(st, func(d pgv1.DatabaseStatus) bool { return d.Name == name })
	if i < 0 {
		return false
	}
	for _, r := range roles {
		if !slices.ContainsFunc(st[i].Roles, func(s pgv1.RoleStatus) bool { return s.Name == r && s.Ensure == pgv1.RoleEnsureAbsent }) {
			return false
		}
	}
	return true
}
