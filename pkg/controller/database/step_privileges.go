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
func privilegesStep(ctx context.Context, p *pass) health {
	if pipeline.ConditionTrue(p.db.Status.Conditions, pgv1.ConditionPrivilegesReady, p.db.Generation) {
		if c := meta.FindStatusCondition(p.db.Status.Conditions, pgv1.ConditionPrivilegesReady); c.Reason == pgv1.ReasonPrivilegesIsolated {
			return ready(c.Reason, c.Message)
		}
	}
	for _, d := range p.db.Spec.Databases {
		n := namesOf(p.db.Name, d.Name)
		t, err := p.asAdmin(ctx, d, n)
		if err != nil {
			p.problem(d.Name, err.Error())
			return waiting(pgv1.PhaseProvisioning, pgv1.ReasonAdminUnavailable, err.Error(), sqlRecheck)
		}
		if err := p.deps.sql.execTx(ctx, t, grantPlan(n, ownership.PostgresMarker(p.db.Namespace, p.db.Name), d.ReadOnlyRole)); err != nil {
			p.deps.cas.Forget(p.db.Namespace, naming.CASecret(p.obs.cluster.Name)) // in case the CA rotated
			msg := fmt.Sprintf("grant privileges on database %s: %v", n.DB, err)
			p.problem(d.Name, msg)
			return waiting(pgv1.PhaseProvisioning, pgv1.ReasonGrantFailed, msg, sqlRecheck)
		}
		klog.FromContext(ctx).V(2).Info("Granted privileges", "database", n.DB, "role", n.RWRole)
	}
	return ready(pgv1.ReasonPrivilegesIsolated, fmt.Sprintf("privileges granted on %d database(s); no other role may connect", len(p.db.Spec.Databases)))
}
