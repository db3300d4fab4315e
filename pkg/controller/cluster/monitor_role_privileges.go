package cluster

import (
	"context"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/controller/roleprivilege"
)

// revertRolePrivileges finishes the repair of one of the cluster's own
// DatabaseRoles (the monitor, the certificate group) after our apply:
// what the apply cannot remove goes by roleprivilege.Scrub, and a
// privilege someone had put on cur, the object judged, is reported with a
// Warning Event. The monitor's membership of pg_monitor is the only one
// either role has.
func revertRolePrivileges(ctx context.Context, p *pass, cur, applied *cnpgv1.DatabaseRole, inRoles []string) error {
	if err := roleprivilege.Scrub(ctx, p.deps.pg.CNPGV1().DatabaseRoles(p.cluster.Namespace), applied, inRoles, fieldManager); err != nil {
		return err
	}
	if cur == nil {
		return nil
	}
	if drift := roleprivilege.Drift(cur, inRoles); len(drift) > 0 {
		roleprivilege.Report(ctx, p.deps.recorder, p.cluster, cur, drift)
	}
	return nil
}
