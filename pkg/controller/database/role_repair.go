package database

import (
	"context"
	"fmt"
	"slices"

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
	drift := escalations(cur, w)
	client := p.deps.pg.CNPGV1().DatabaseRoles(clusterNS(p.db))
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

// escalations are the fields of cur, our DatabaseRole, that differ from w
// because someone edited them (roleprivilege.DriftLimited), not because
// the spec changed: a membership w adds or drops among the database's own
// roles (an extra role the owner joins or leaves, an inRoles entry) and
// a connection limit an extra role declares are the spec's, and are
// applied without a report. A membership in anything else is reported.
func escalations(cur *cnpgv1.DatabaseRole, w roleWant) []string {
	return slices.DeleteFunc(roleprivilege.DriftLimited(cur, w.inRoles(), w.connectionLimit()), func(f string) bool {
		switch f {
		case "inRoles":
			return !slices.ContainsFunc(cur.Spec.InRoles, func(r string) bool {
				return !slices.Contains(w.inRoles(), r) && !slices.Contains(w.own, r)
			})
		case "connectionLimit":
			return w.extra
		}
		return false
	})
}
