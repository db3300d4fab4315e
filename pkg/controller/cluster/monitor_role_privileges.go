package cluster

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
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
	drift := roleprivilege.Drift(cur, inRoles)
	if len(drift) == 0 {
		return nil
	}
	fields := strings.Join(drift, ", ")
	klog.FromContext(ctx).Info("Reverted privileges given to a role behind setpoint's back", "databaseRole", cur.Name, "role", cur.Spec.Name, "fields", fields)
	p.deps.recorder.Eventf(p.cluster, corev1.EventTypeWarning, pgv1.EventRolePrivilegesReverted,
		"DatabaseRole %s of role %s was edited to change %s; setpoint set them back", cur.Name, cur.Spec.Name, fields)
	return nil
}
