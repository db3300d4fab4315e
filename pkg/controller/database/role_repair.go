package database

import (
	"context"
	"fmt"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/roleprivilege"
)

// repairRole brings cur, our DatabaseRole, back to w: a server-side apply
// of our fields (forced: another manager's value of a field we own is
// taken back), then, when the role carries what an apply cannot remove,
// roleprivilege.Scrub. A change to an attribute that bears privilege is
// reported as such, with a Warning Event, until CNPG applied the role
// again: it is an escalation tried behind setpoint's back, not a spec
// change.
func (p *pass) repairRole(ctx context.Context, cur *cnpgv1.DatabaseRole, w roleWant) health {
	drift := roleprivilege.Drift(cur, w.inRoles())
	client := p.deps.pg.CNPGV1().DatabaseRoles(p.db.Namespace)
	applied, err := client.Apply(ctx, roleApply(p.db, w), applyOpts)
	if err != nil {
		return apiError(pgv1.ReasonRoleApplyFailed, fmt.Errorf("apply DatabaseRole %s: %w", w.object, err))
	}
	if err := roleprivilege.Scrub(ctx, client, applied, w.inRoles(), fieldManager); err != nil {
		return apiError(pgv1.ReasonRoleApplyFailed, err)
	}
	if len(drift) == 0 {
		return rolePending(w.role)
	}
	fields := roleprivilege.Report(ctx, p.deps.recorder, p.db, cur, drift)
	return waiting(pgv1.PhaseProvisioning, pgv1.ReasonRolePrivilegesReverted,
		fmt.Sprintf("DatabaseRole %q of role %s was edited to change %s; set back, waiting for CloudNativePG to apply the role", w.object, w.role, fields), provisionRecheck)
}
