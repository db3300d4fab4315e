package database

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// clusterStep: the referenced PostgresCluster exists and is Ready. Waiting
// for it is an expected state, reported as Pending with a requeue-after,
// never an error loop.
func clusterStep(_ context.Context, p *pass) health {
	name := p.db.Spec.ClusterRef.Name
	pc := p.obs.cluster
	switch {
	case pc == nil:
		return waiting(pgv1.PhasePending, "ClusterNotFound",
			fmt.Sprintf("PostgresCluster %q not found in namespace %q", name, p.db.Namespace), clusterMissingRecheck)
	case pc.DeletionTimestamp != nil:
		return waiting(pgv1.PhasePending, "ClusterDeleting", fmt.Sprintf("PostgresCluster %q is being deleted", name), clusterNotReadyRecheck)
	case !meta.IsStatusConditionTrue(pc.Status.Conditions, pgv1.ConditionReady):
		msg := fmt.Sprintf("PostgresCluster %q is not ready", name)
		if pc.Status.Phase != "" {
			msg += fmt.Sprintf(" (phase %s)", pc.Status.Phase)
		}
		return waiting(pgv1.PhasePending, "ClusterNotReady", msg, clusterNotReadyRecheck)
	}
	return ready("ClusterReady", fmt.Sprintf("PostgresCluster %q is ready", name))
}
