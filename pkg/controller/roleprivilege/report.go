package roleprivilege

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Report says that setpoint set back drift, the fields Drift found on cur
// (the object as judged before the repair): a log line and a Warning Event
// on owner, the PostgresDatabase or PostgresCluster the role is for. It
// returns the fields as one string, for a status message.
func Report(ctx context.Context, rec record.EventRecorder, owner runtime.Object, cur *cnpgv1.DatabaseRole, drift []string) string {
	fields := strings.Join(drift, ", ")
	klog.FromContext(ctx).Info("Reverted privileges given to a role behind setpoint's back", "databaseRole", cur.Name, "role", cur.Spec.Name, "fields", fields)
	rec.Eventf(owner, corev1.EventTypeWarning, pgv1.EventRolePrivilegesReverted,
		"DatabaseRole %s of role %s was edited to change %s; setpoint set them back", cur.Name, cur.Spec.Name, fields)
	return fields
}
