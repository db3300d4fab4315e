package cluster

import (
	"context"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// pass is one reconcile pass of one PostgresCluster: the object as read,
// the merged desired state, the snapshot, the contracts published so far
// and the status being built. Components read and write only through it.
type pass struct {
	cluster   *pgv1.PostgresCluster
	want      *desired
	obs       *observation
	contracts contracts
	status    *pgv1.PostgresClusterStatus
	deps      *deps

	facts     *facts
	factsRead bool
	// roles is the managedRoles component's arbitration, for status.
	roles *rolePlan
	// specApplied is set when this pass changed an existing CNPG Cluster.
	specApplied bool
}

func (p *pass) record(condition string, h health) {
	reason := h.reason
	if reason == "" {
		reason = string(h.phase)
	}
	controller.SetCondition(&p.status.Conditions, p.cluster.Generation, condition, h.phase == pgv1.PhaseReady, reason, h.message)
}

// postgresFacts reads the Postgres facts at most once per pass, and only
// when a component asks: a converged cluster's resync runs no SQL.
func (p *pass) postgresFacts(ctx context.Context) *facts {
	if !p.factsRead {
		p.factsRead = true
		p.facts = p.deps.readFacts(ctx, p)
	}
	return p.facts
}

// name helpers: children have deterministic names, so a stale cache can
// never lead to a second copy.
func (p *pass) name(suffix string) string { return p.cluster.Name + suffix }
