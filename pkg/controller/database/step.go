package database

import (
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// step is one stage of the database's pipeline, in the shape the
// cluster's components have (pipeline.Component; ADR-0010): Reconcile,
// then Observe.
//
// A step's judgment is interleaved with its writes: whether a database
// needs a write, and whether what the write found stops that database, is
// decided database by database. So Reconcile does the writes and records
// each database's outcome, as a health, in the step's state in the pass
// (<name>State, under one field named after the step:
// docs/adr/0009-components-own-their-pass-state.md); Observe turns the
// recorded outcomes into the step's health and each database's first
// problem (report). Reconcile returns nil: a transient error is already
// one of the outcomes (apiError), where Observe finds it, and an error
// returned besides would turn a wait the step chose (an SQL error is one)
// into a retry with backoff.
type step = pipeline.Component[*pass]

// steps is the database's linear condition pipeline
// (docs/adr/0002-component-pipelines.md), in pipeline order. The Secrets
// come first, unlike in the seed design: they depend on nothing of the
// cluster, so a database created with its cluster has them while the
// cluster comes up. Each step is named after the condition it owns.
func steps() []step {
	return []step{secretsStep{}, clusterStep{}, configMapsStep{}, rolesStep{}, databasesStage{}, privilegesStep{}}
}

// stages are the steps as stages of the runner. The steps keep nothing of
// a pass (their state is in it), so one list serves every worker.
var stages = pipeline.StagesOf[*pass](steps())

// dbOutcome is where one database stands in a step, as Reconcile left it.
type dbOutcome struct {
	name string
	h    health
}

// report records the problem of each database not done, in spec order
// (p.problem: it becomes the database's status entry message), and
// returns the worst of their healths (Ready when all are done).
func (p *pass) report(outs []dbOutcome) health {
	hs := make([]health, 0, len(outs))
	for _, o := range outs {
		if o.h.Phase != pgv1.PhaseReady {
			p.problem(o.name, o.h.Message)
		}
		hs = append(hs, o.h)
	}
	return worst(hs)
}
