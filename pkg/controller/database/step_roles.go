package database

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// rolesStep keeps one CNPG DatabaseRole per role of every database — the
// object named after the cluster and the role (naming.RoleObject), controlled
// by this PostgresDatabase, server-side applied with only our fields — and
// waits until CNPG reports each applied at its generation. Before the
// first write of a role, claimRole proves that nothing else has it, and
// the first write is a create, which fails if another object won a race.
type rolesStep struct{}

// rolesState is where each database's roles stand, in spec order, as
// Reconcile left them: per database the worst of its roles, and over all
// of them how many wait for CNPG and the soonest recheck one asked for.
type rolesState struct {
	databases []dbOutcome
	pending   int
	recheck   time.Duration
}

func (rolesStep) Name() string      { return pgv1.ConditionRolesReady }
func (rolesStep) Condition() string { return pgv1.ConditionRolesReady }

func (rolesStep) Reconcile(ctx context.Context, p *pass) error {
	var st rolesState
	var all []health
	for _, d := range p.db.Spec.Databases {
		e := p.entry(d.Name)
		var dbh []health
		n := namesOf(p.db, d.Name)
		for _, c := range credentialsOf(d, n) {
			h := p.ensureCopy(ctx, secretOf(e, c))
			if h.Phase == pgv1.PhaseReady {
				h = p.ensureRole(ctx, p.roleWantOf(d, n, c, passwordCopy(p.db, secretOf(e, c))))
			}
			if h.Phase != pgv1.PhaseReady && h.Phase != pgv1.PhaseFailed {
				st.pending++
			}
			markExists(e, c.role, h.Phase == pgv1.PhaseReady || certWait(h))
			dbh = append(dbh, h)
			all = append(all, h)
		}
		st.databases = append(st.databases, dbOutcome{name: d.Name, h: worst(dbh)})
	}
	st.recheck = soonestRecheck(all)
	p.roles = st
	return nil
}

// Observe reports the roles that wait for CNPG as one wait, with their
// count, rather than the first database's.
func (rolesStep) Observe(_ context.Context, p *pass, _ error) health {
	st := p.roles
	h := p.report(st.databases)
	if h.Phase == pgv1.PhaseProvisioning && h.Reason == pgv1.ReasonRolesPending {
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonRolesPending, fmt.Sprintf("%d role(s) not yet applied by CloudNativePG", st.pending), st.recheck)
	}
	if h.Phase != pgv1.PhaseReady {
		return h
	}
	return ready(pgv1.ReasonRolesReconciled, "every role is applied by CloudNativePG")
}

// soonestRecheck is the soonest recheck a pending role asked for, and
// provisionRecheck when none asked sooner.
func soonestRecheck(hs []health) time.Duration {
	after := provisionRecheck
	for _, h := range hs {
		after = pipeline.Soonest(after, h.RequeueAfter)
	}
	return after
}

// secretOf is the password Secret the secrets step chose for c.
func secretOf(e *pgv1.DatabaseStatus, c roleCredential) string {
	var ref *pgv1.LocalObjectReference
	switch c.kind {
	case "admin":
		ref = e.AdminSecretRef
	case "rw":
		ref = e.RWSecretRef
	case "ro":
		ref = e.ROSecretRef
	}
	if ref == nil {
		return c.generated
	}
	return ref.Name
}

// markExists records in the status entry whether Postgres has the role,
// as CNPG reports it.
func markExists(e *pgv1.DatabaseStatus, role string, exists bool) {
	for i := range e.Roles {
		if e.Roles[i].Name == role && e.Roles[i].Ensure == pgv1.RoleEnsurePresent {
			e.Roles[i].Exists = exists
		}
	}
}

// roleWantOf is the DatabaseRole of role c of database d, with password
// Secret secret ("" for a role without login).
func (p *pass) roleWantOf(d pgv1.DatabaseSpec, n names, c roleCredential, secret string) roleWant {
	cluster := p.obs.cluster.Name
	// Reclaim retain while the database exists, whatever its deletion
	// policy: CNPG cannot drop a role that owns the database, so a
	// DatabaseRole deleted by hand with reclaim delete would hang in
	// deletion for ever. With retain the role stays in Postgres, and the
	// next pass makes the object again and CNPG adopts the role, its
	// password and what it owns intact. removeRole switches to delete only
	// when setpoint itself deletes the object under a Delete policy.
	w := roleWant{object: naming.RoleObject(cluster, c.role), cluster: cluster, role: c.role, secret: secret,
		reclaim: roleReclaim(pgv1.DeletionPolicyRetain), legacyReclaim: roleReclaim(policyOf(d)), cert: certAuth(d)}
	switch r := c.extra; {
	case r != nil:
		w.own = p.obs.roleNames[d.Name]
		// What CNPG's DatabaseRole expresses goes through it: login,
		// memberships (inRoles, names within the database), the limit.
		w.extra, w.nologin = true, !loginOf(*r)
		if r.ConnectionLimit != nil {
			w.limit = ptr.To(int64(*r.ConnectionLimit))
		}
		for _, m := range r.InRoles {
			w.memberOf = append(w.memberOf, n.Role(m))
		}
		slices.Sort(w.memberOf)
		// Only a role that logs in gets a client certificate.
		w.cert = w.cert && !w.nologin
	case c.kind == "admin":
		w.own, w.memberOf = p.obs.roleNames[d.Name], p.adminMemberships(d, n)
	default:
		// rw and ro: the limit their entry of spec.roles declares.
		if i := slices.IndexFunc(d.Roles, func(r pgv1.DatabaseRoleSpec) bool { return r.Name == c.kind }); i >= 0 && d.Roles[i].ConnectionLimit != nil {
			w.limit = ptr.To(int64(*d.Roles[i].ConnectionLimit))
		}
	}
	return w
}

// ensureRole applies the DatabaseRole w of one role and reports where
// CNPG stands with it.
func (p *pass) ensureRole(ctx context.Context, w roleWant) health {
	role := w.role
	cur := p.obs.roles[w.object]
	if cur != nil && !ownsClusterSide(cur, p.db) {
		// Never adopted: a DatabaseRole we did not create may carry
		// anyone's password Secret and reclaim policy.
		return p.owner().Conflict("DatabaseRole", cur).Health(pgv1.ReasonRoleConflict)
	}
	if cur != nil && cur.DeletionTimestamp != nil {
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonRolesPending, fmt.Sprintf("waiting for the previous DatabaseRole %q of role %s to be deleted", w.object, role), provisionRecheck)
	}
	if cur == nil {
		if h := p.claimRole(ctx, w); h.Phase != pgv1.PhaseReady {
			return h
		}
		return p.createRole(ctx, w)
	}
	if !roleCurrent(cur, p.db, w) {
		return p.repairRole(ctx, cur, w)
	}
	if h, ok := p.retryRole(ctx, cur, w); ok {
		return h
	}
	st := cur.Status
	switch {
	case cnpgverdict.CNPGRefused(st.Applied):
		// CNPG retries on its own; what we can provoke — the server
		// restarting, the Secret not there yet — passes, and what does
		// not (a conflict CNPG found) is fixed elsewhere. Its message is
		// the user's clue.
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonRoleNotApplied, fmt.Sprintf("CloudNativePG could not apply role %s (DatabaseRole %q): %s", role, w.object, st.Message), provisionRecheck)
	case st.ObservedGeneration != cur.Generation || st.Applied == nil:
		return rolePending(role)
	}
	if w.cert {
		return certHealth(cur, role)
	}
	return ready("", "")
}

// createRole makes the DatabaseRole of w. When the name is taken — another
// PostgresDatabase's object our cache has not seen yet — the API server
// refuses, and the object it has is judged as the cache would have.
func (p *pass) createRole(ctx context.Context, w roleWant) health {
	client := p.deps.pg.CNPGV1().DatabaseRoles(clusterNS(p.db))
	_, err := client.Create(ctx, roleObject(p.db, w), metav1.CreateOptions{FieldManager: fieldManager})
	if apierrors.IsAlreadyExists(err) {
		live, gerr := client.Get(ctx, w.object, metav1.GetOptions{})
		if gerr != nil {
			return apiError(pgv1.ReasonRoleCreateFailed, fmt.Errorf("read existing DatabaseRole %s: %w", w.object, gerr))
		}
		if !ownsClusterSide(live, p.db) {
			return p.owner().Conflict("DatabaseRole", live).Health(pgv1.ReasonRoleConflict)
		}
		return rolePending(w.role) // ours, and the cache is behind
	}
	if err != nil {
		return apiError(pgv1.ReasonRoleCreateFailed, fmt.Errorf("create DatabaseRole %s: %w", w.object, err))
	}
	return rolePending(w.role)
}

// rolePending is the wait for CNPG to apply a DatabaseRole. One message
// for the apply and the wait after it: one status write, not two.
func rolePending(role string) health {
	return waiting(pgv1.PhaseProvisioning, pgv1.ReasonRolesPending, fmt.Sprintf("role %s not yet applied by CloudNativePG", role), provisionRecheck)
}
