package database

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// privilegesStep grants, per database, what CNPG cannot, as the
// database's owner <db>_admin (no superuser needed): <db>_rw may
// connect, use schema public, read and write its tables and sequences, and
// — through default privileges — whatever <db>_admin creates there later;
// <db>_ro (readOnlyRole) the same, read only, in public and in every
// declared schema; no other role may connect (isolationPlan). It creates
// the declared schemas and gives the fixed roles and the extra roles of
// spec.roles (made by the roles step as CNPG DatabaseRoles, the owner a
// member of each) the grants spec.roles declares for them (grantplan).
//
// A database that declares schemas or roles has its privileges kept
// exact: every pass reads what the database's roles hold (one query) and
// runs only what differs, so a converged database costs that read and no
// statement, and a privilege someone granted by hand to a role of
// setpoint's is revoked on the next pass and reported (an Event, the
// reason PrivilegesDriftReverted). One that declares neither costs no SQL
// once converged: drift there (someone revoking a grant by hand) is not
// corrected until the spec changes or an earlier step stops being ready,
// which resets the condition. The fixed grants (grantPlan) run again when PrivilegesReady is not True for the
// current generation with a reason of the current plan: when a release
// makes the plan guarantee more (PrivilegesGranted became
// PrivilegesIsolated when PUBLIC's rights were revoked), the new reason
// makes an upgraded operator run it once on every existing database.
type privilegesStep struct{}

// privilegesState is what the grants of this pass came to: where the
// step stands, and the database they stopped at, if any (at most one: the
// step stops at the first database it cannot grant on).
type privilegesState struct {
	h       health
	stopped []dbOutcome
}

func (privilegesStep) Name() string      { return pgv1.ConditionPrivilegesReady }
func (privilegesStep) Condition() string { return pgv1.ConditionPrivilegesReady }

func (privilegesStep) Reconcile(ctx context.Context, p *pass) error {
	p.privileges = p.grantPrivileges(ctx)
	return nil
}

func (privilegesStep) Observe(_ context.Context, p *pass, _ error) health {
	p.report(p.privileges.stopped)
	return p.privileges.h
}

// grantPrivileges keeps every database's privileges as its spec declares
// them, and stops at the first database that fails. Per database that
// declares schemas or roles it reads the privileges its roles hold (one
// query, grantplan.CatalogQuery), plans what differs (grantplan.Plan) and
// runs the plan, with the fixed grants (grantPlan) when they are due, in
// one transaction as the database's owner: a restart leaves the old
// privileges or the new, never a mix. A converged database runs the read
// and no statement; one that declares neither, nothing.
func (p *pass) grantPrivileges(ctx context.Context) privilegesState {
	major := analysisDue(p.db, p.obs.cluster)
	// The fixed grants hold from an earlier pass at this generation.
	held := major == 0 && pipeline.ConditionTrue(p.db.Status.Conditions, pgv1.ConditionPrivilegesReady, p.db.Generation)
	var prev *metav1.Condition
	if held {
		prev = meta.FindStatusCondition(p.db.Status.Conditions, pgv1.ConditionPrivilegesReady)
		held = prev.Reason == pgv1.ReasonPrivilegesIsolated || prev.Reason == pgv1.ReasonPrivilegesDriftReverted
	}
	// The databases' settings are applied with the fixed grants: once per
	// generation, and again when a cluster's or class's defaults changed.
	timeouts := p.statementTimeoutNote()
	settle := !held || !statementTimeoutsHeld(prev.Message, timeouts)
	var ran int
	var drift, skipped, kept []string
	for _, d := range p.db.Spec.Databases {
		n := namesOf(p.db, d.Name)
		exact := grantplan.KeptExact(d)
		if held && !exact && !settle {
			continue // nothing to read: its grants hold from an earlier pass
		}
		t, err := p.asAdmin(ctx, d, n)
		if err != nil {
			return stoppedAt(d.Name, waiting(pgv1.PhaseProvisioning, pgv1.ReasonAdminUnavailable, err.Error(), sqlRecheck))
		}
		var plan grantplan.Result
		if exact {
			w := grantplan.Declared(d, n)
			cat, err := p.deps.sql.grants(ctx, t, w)
			if err != nil {
				p.deps.cas.Forget(clusterNS(p.db), naming.CASecret(p.obs.cluster.Name)) // in case the CA rotated
				msg := fmt.Sprintf("read privileges on database %s: %v", n.DB, err)
				return stoppedAt(d.Name, waiting(pgv1.PhaseProvisioning, pgv1.ReasonGrantFailed, msg, sqlRecheck))
			}
			plan = grantplan.Plan(w, cat)
		}
		stmts := plan.Statements
		if !held {
			stmts = append(grantPlan(n, ownership.PostgresMarker(p.db.Namespace, p.db.Name), d.ReadOnlyRole), stmts...)
		}
		if len(stmts) > 0 {
			if err := p.deps.sql.execTx(ctx, t, stmts); err != nil {
				p.deps.cas.Forget(clusterNS(p.db), naming.CASecret(p.obs.cluster.Name)) // in case the CA rotated
				msg := fmt.Sprintf("grant privileges on database %s: %v", n.DB, err)
				return stoppedAt(d.Name, waiting(pgv1.PhaseProvisioning, pgv1.ReasonGrantFailed, msg, sqlRecheck))
			}
			klog.FromContext(ctx).V(2).Info("Granted privileges", "database", n.DB, "statements", len(stmts))
		}
		if settle {
			if err := p.ensureStatementTimeout(ctx, t, d); err != nil {
				p.deps.cas.Forget(p.db.Namespace, naming.CASecret(p.obs.cluster.Name)) // in case the CA rotated
				return stoppedAt(d.Name, waiting(pgv1.PhaseProvisioning, pgv1.ReasonGrantFailed, err.Error(), sqlRecheck))
			}
		}
		ran += len(stmts)
		skipped = append(skipped, plan.Skipped...)
		for _, k := range plan.Kept {
			kept = append(kept, n.DB+"."+k)
		}
		if held {
			// The spec is the one last applied: what was revoked had
			// been granted by hand.
			for _, r := range plan.Revoked {
				drift = append(drift, r+" in database "+n.DB)
			}
		}
		if major > 0 {
			if h, ok := p.analyzeAfterUpgrade(ctx, t, n.DB, major); !ok {
				return stoppedAt(d.Name, h)
			}
		}
	}
	key := types.NamespacedName{Namespace: p.db.Namespace, Name: p.db.Name}
	if held && !settle && ran == 0 {
		return privilegesState{h: p.keptReport(key, prev)}
	}
	msg := fmt.Sprintf("privileges granted on %d database(s); no other role may connect; the last apply ran %d statement(s)", len(p.db.Spec.Databases), ran)
	if len(skipped) > 0 {
		msg += "; left alone: " + strings.Join(skipped, "; ")
	}
	if len(kept) > 0 {
		msg += "; schemas not declared, kept with their data: " + strings.Join(kept, ", ")
	}
	msg += timeouts
	if major > 0 {
		p.status.StatisticsMajor = major
		msg += fmt.Sprintf("; analyzed on PostgreSQL %d", major)
	}
	if len(drift) > 0 {
		revoked := strings.Join(drift, "; ")
		klog.FromContext(ctx).Info("Revoked privileges granted behind setpoint's back", "revoked", revoked)
		p.deps.recorder.Eventf(p.db, corev1.EventTypeWarning, pgv1.EventPrivilegesDriftReverted,
			"revoked privileges the spec does not declare: %s", revoked)
		return privilegesState{h: p.reportDrift(key, revoked, msg)}
	}
	if m, ok := p.deps.drift.pending(key, p.db.UID, p.db.Generation); ok {
		// An earlier pass revoked drift and its status write was lost.
		return privilegesState{h: p.reportDrift(key, m.revoked, msg)}
	}
	return privilegesState{h: ready(pgv1.ReasonPrivilegesIsolated, msg)}
}

// reportDrift is the condition reporting revoked as drift after msg,
// remembered until a stored status shows it (unreportedDrift).
func (p *pass) reportDrift(key types.NamespacedName, revoked, msg string) health {
	msg += "; revoked, not declared: " + revoked
	p.deps.drift.remember(key, p.db.UID, p.db.Generation, revoked, msg)
	return ready(pgv1.ReasonPrivilegesDriftReverted, msg)
}

// keptReport is the condition of a pass that found nothing to run: the
// stored one, unless an earlier pass of this generation revoked drift that
// the stored condition does not show (its status write was lost,
// unreportedDrift), which it reports. Once the stored condition shows
// that drift, it is forgotten.
func (p *pass) keptReport(key types.NamespacedName, prev *metav1.Condition) health {
	m, ok := p.deps.drift.pending(key, p.db.UID, p.db.Generation)
	if !ok {
		return ready(prev.Reason, prev.Message)
	}
	if prev.Reason == pgv1.ReasonPrivilegesDriftReverted && prev.Message == m.message {
		p.deps.drift.clear(key)
		return ready(prev.Reason, prev.Message)
	}
	return ready(pgv1.ReasonPrivilegesDriftReverted, m.message)
}

// stoppedAt is the grants stopped at database name, where the step
// stands h: its message is the database's problem.
func stoppedAt(name string, h health) privilegesState {
	return privilegesState{h: h, stopped: []dbOutcome{{name: name, h: h}}}
}
