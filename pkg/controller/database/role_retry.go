package database

import (
	"context"
	"fmt"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
)

// retryRole asks CNPG to apply cur again when its instance manager was
// not yet allowed to read the role's Secret (cnpgverdict.RetryDue), rather
// than leave the role to CNPG's own retry 30 s later — at once when the
// cluster's instance Role has come to name the Secret since the last
// retry (cnpgverdict.RetryDueGranted, role_grant.go); ok is false when
// cur is not in that state.
func (p *pass) retryRole(ctx context.Context, cur *cnpgv1.DatabaseRole, w roleWant) (health, bool) {
	now := p.deps.clock.Now()
	granted := cnpgverdict.MayRead(p.obs.instanceRole, w.secret)
	due, after := cnpgverdict.RetryDueGranted(cur, now, granted)
	if !due && after == 0 {
		return health{}, false
	}
	if due {
		ac := roleApply(p.db, w).WithAnnotations(cnpgverdict.GrantedRetryMark(cur, now, granted))
		if _, err := p.deps.pg.CNPGV1().DatabaseRoles(clusterNS(p.db)).Apply(ctx, ac, applyOpts); err != nil {
			return apiError(pgv1.ReasonRoleApplyFailed, fmt.Errorf("retry DatabaseRole %s: %w", w.object, err)), true
		}
		after = cnpgverdict.RetryPace
	}
	return waiting(pgv1.PhaseProvisioning, pgv1.ReasonRolesPending,
		fmt.Sprintf("role %s not yet applied by CloudNativePG: it may not read Secret %q yet (asked it to retry)", w.role, w.secret), after), true
}
