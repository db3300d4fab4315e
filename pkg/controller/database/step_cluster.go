package database

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// clusterStep: the referenced PostgresCluster exists and is Ready. Waiting
// for it is an expected state, reported as Pending with a requeue-after,
// never an error loop.
//
// Readiness holds (docs/adr/0005-conditions-after-a-blocker.md): a
// database Ready at its generation stays Ready while its cluster passes
// through a transient phase (a parameter change, a pooler scale, a
// switchover); only a cluster that is gone, being deleted or Failed is
// reflected, with its reason.
//
// It writes nothing: Observe alone judges the snapshot.
type clusterStep struct{}

func (clusterStep) Name() string      { return pgv1.ConditionClusterReady }
func (clusterStep) Condition() string { return pgv1.ConditionClusterReady }

func (clusterStep) Reconcile(context.Context, *pass) error { return nil }

func (clusterStep) Observe(_ context.Context, p *pass, _ error) health {
	name := p.db.Spec.ClusterRef.Name
	pc := p.obs.cluster
	switch {
	case pc == nil:
		return waiting(pgv1.PhasePending, pgv1.ReasonClusterNotFound,
			fmt.Sprintf("PostgresCluster %q not found in namespace %q", name, clusterNS(p.db)), clusterMissingRecheck)
	case pc.DeletionTimestamp != nil:
		return waiting(pgv1.PhasePending, pgv1.ReasonClusterDeleting, fmt.Sprintf("PostgresCluster %q is being deleted", name), clusterNotReadyRecheck)
	case pc.Status.Phase == pgv1.PhaseFailed:
		msg := fmt.Sprintf("PostgresCluster %q is Failed", name)
		if c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionReady); c != nil {
			msg += fmt.Sprintf(": %s: %s", c.Reason, c.Message)
		}
		return waiting(pgv1.PhasePending, pgv1.ReasonClusterFailed, msg, clusterNotReadyRecheck)
	case !meta.IsStatusConditionTrue(pc.Status.Conditions, pgv1.ConditionReady) && !readyAtGeneration(p.db):
		// Worded without the cluster's phase: a new cluster passes through
		// several on its way to Ready, and each would rewrite the status of
		// every database waiting for it. The cluster's own status says where
		// it stands.
		return waiting(pgv1.PhasePending, pgv1.ReasonClusterNotReady, fmt.Sprintf("PostgresCluster %q is not ready", name), clusterNotReadyRecheck)
	}
	if pc.IsReplica() {
		// Postgres replays the primary's databases, roles and grants and
		// refuses every write: the steps after this one, which write them,
		// wait for a promotion (the spec change wakes this database).
		return waiting(pgv1.PhasePending, pgv1.ReasonClusterIsReplica, fmt.Sprintf(
			"PostgresCluster %q is a replica of %s (spec.topology): its databases, roles and grants are replayed from there and read-only, so setpoint writes none of them until it is promoted",
			name, pc.Spec.Topology.Primary), clusterReplicaRecheck)
	}
	if u := pc.Status.Upgrade; u != nil && u.Phase.InProgress() {
		// A major upgrade is transient too, but long and announced: said,
		// one status write per phase.
		return ready(pgv1.ReasonClusterUpgrading, fmt.Sprintf(
			"PostgresCluster %q is in a major upgrade from PostgreSQL %d to %d (%s); the database stays Ready through it, and is analyzed again on %d",
			name, u.From, u.To, u.Phase, u.To))
	}
	// The same reason and message whether the cluster is Ready or passing
	// through a transient phase: a held readiness costs no status write.
	return ready(pgv1.ReasonClusterReady, fmt.Sprintf("PostgresCluster %q is ready", name))
}

// readyAtGeneration: the object was Ready for its current spec.
func readyAtGeneration(db *pgv1.PostgresDatabase) bool {
	return db.Status.Phase == pgv1.PhaseReady && pipeline.ConditionTrue(db.Status.Conditions, pgv1.ConditionReady, db.Generation)
}
