package cluster

import (
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// roleChangeUnread: what changed of one of the cluster's own DatabaseRoles
// (the monitor's, the certificate group's) is nothing a pass reads — CNPG's
// finalizer, and the certificate group's status (whether CNPG applied the
// group is not waited for: monitor_certgroup.go). CNPG writes both while it brings
// a new Cluster up, when the cluster's workers are busiest; each woke a
// pass that found nothing new. Read, and so waking: the monitor's status
// (its readiness), and all that setpoint writes or a user may change —
// spec, labels, annotations, owners, deletion.
func roleChangeUnread(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*cnpgv1.DatabaseRole)
	n, ok2 := newObj.(*cnpgv1.DatabaseRole)
	if !ok1 || !ok2 {
		return false
	}
	same := equality.Semantic.DeepEqual(o.Spec, n.Spec) &&
		maps.Equal(o.Labels, n.Labels) && maps.Equal(o.Annotations, n.Annotations) &&
		equality.Semantic.DeepEqual(o.OwnerReferences, n.OwnerReferences) &&
		o.DeletionTimestamp.Equal(n.DeletionTimestamp)
	if !same {
		return false
	}
	return n.Spec.Name == naming.CertAuthGroup || equality.Semantic.DeepEqual(o.Status, n.Status)
}
