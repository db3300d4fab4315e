package cluster

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// PgBouncer runs in a Deployment CNPG names after, and controls by, the
// Pooler. CNPG's Pooler status.instances is that Deployment's
// status.replicas — Pods created, not Pods ready — so a pooler is ready
// only once the Deployment itself says its replicas are available.

// availabilityChanged: only what pgBouncerAvailable reads concerns the
// cluster, not every status write of the Deployment controller.
func availabilityChanged(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*appsv1.Deployment)
	n, ok2 := newObj.(*appsv1.Deployment)
	if !ok1 || !ok2 {
		return true
	}
	return o.Generation != n.Generation || o.Status.ObservedGeneration != n.Status.ObservedGeneration ||
		o.Status.AvailableReplicas != n.Status.AvailableReplicas || o.Status.UpdatedReplicas != n.Status.UpdatedReplicas
}

// pgBouncerAvailable reports whether pooler's Deployment d, controlled by
// pooler, has rolled out its current spec with want replicas available,
// and if not what it waits for.
func pgBouncerAvailable(pooler *cnpgv1.Pooler, d *appsv1.Deployment, want int32) (bool, string) {
	switch {
	case d == nil || !ownership.IsControlledBy(d, pooler.UID):
		return false, fmt.Sprintf("waiting for CloudNativePG to create PgBouncer's Deployment %s", pooler.Name)
	case d.Status.ObservedGeneration < d.Generation || d.Status.UpdatedReplicas < want:
		return false, fmt.Sprintf("PgBouncer of %s rolling out (%d of %d updated)", pooler.Name, d.Status.UpdatedReplicas, want)
	case d.Status.AvailableReplicas < want:
		return false, fmt.Sprintf("PgBouncer of %s starting (%d of %d available)", pooler.Name, d.Status.AvailableReplicas, want)
	}
	return true, ""
}
