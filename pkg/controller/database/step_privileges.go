package database

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// privilegesStep grants, per database, what CNPG cannot, as the
// database's owner <db>_admin (no superuser needed): <db>_rw may
// connect, use schema public, read and write its tables and sequences, and
// — through default privileges — whatever <db>_admin creates there later;
// <db>_ro (readOnlyRole) the same, read only; no other role may connect
// (isolationPlan).
//
// A converged object costs no SQL: once PrivilegesReady is True for the
// current generation, with the reason of the current plan, the grants are
// not run again. Drift (someone revoking a grant by hand) is therefore not
// corrected until the spec changes or an earlier step stops being ready,
// which resets the condition. The reason names what the plan guarantees:
// when a release makes the plan guarantee more (PrivilegesGranted became
// PrivilegesIsolated when PUBLIC's rights were revoked), the new reason
// makes an upgraded operator run the plan once on every existing database.
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

// grantPrivileges runs the grants of every database, unless they hold
// from an earlier pass, and stops at the first database that fails.
func (p *pass) grantPrivileges(ctx context.Context) privilegesState {
	major := analysisDue(p.db, p.obs.cluster)
	if major == 0 && pipeline.ConditionTrue(p.db.Status.Conditions, pgv1.ConditionPrivilegesReady, p.db.Generation) {
		if c := meta.FindStatusCondition(p.db.Status.Conditions, pgv1.ConditionPrivilegesReady); c.Reason == pgv1.ReasonPrivilegesIsolated {
			return privilegesState{h: ready(c.Reason, c.Message)}
		}
	}
	for _, d := range p.db.Spec.Databases {
		n := namesOf(p.db.Name, d.Name)
		t, err := p.asAdmin(ctx, d, n)
		if err != nil {
			return stoppedAt(d.Name, waiting(pgv1.PhaseProvisioning, pgv1.ReasonAdminUnavailable, err.Error(), sqlRecheck))
		}
		if err := p.deps.sql.execTx(ctx, t, grantPlan(n, ownership.PostgresMarker(p.db.Namespace, p.db.Name), d.ReadOnlyRole)); err != nil {
			p.deps.cas.Forget(p.db.Namespace, naming.CASecret(p.obs.cluster.Name)) // in case the CA rotated
			msg := fmt.Sprintf("grant privileges on database %s: %v", n.DB, err)
			return stoppedAt(d.Name, waiting(pgv1.PhaseProvisioning, pgv1.ReasonGrantFailed, msg, sqlRecheck))
		}
		klog.FromContext(ctx).V(2).Info("Granted privileges", "database", n.DB, "role", n.RWRole)
		if major > 0 {
			if h, ok := p.analyzeAfterUpgrade(ctx, t, n.DB, major); !ok {
				return stoppedAt(d.Name, h)
			}
		}
	}
	msg := fmt.Sprintf("privileges granted on %d database(s); no other role may connect", len(p.db.Spec.Databases))
	if major > 0 {
		p.status.StatisticsMajor = major
		msg += fmt.Sprintf("; analyzed on PostgreSQL %d", major)
	}
	return privilegesState{h: ready(pgv1.ReasonPrivilegesIsolated, msg)}
}

// stoppedAt is the grants stopped at database name, where the step
// stands h: its message is the database's problem.
func stoppedAt(name string, h health) privilegesState {
	return privilegesState{h: h, stopped: []dbOutcome{{name: name, h: h}}}
}
