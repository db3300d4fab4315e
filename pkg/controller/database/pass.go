package database

import (
	"context"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// pass is one reconcile pass of one PostgresDatabase: the object as read,
// the snapshot, and the status being built. Steps read and write only
// through it.
type pass struct {
	c      *Controller
	db     *pgv1.PostgresDatabase
	obs    *observation
	status *pgv1.PostgresDatabaseStatus
	// entries are the per-database status entries being built, by name.
	entries map[string]*pgv1.DatabaseStatus
	// problems is each database's first problem this pass, for its entry.
	problems map[string]string
	// rotation is what this pass did about a rotation request.
	rotation rotationReport
}

func newPass(c *Controller, db *pgv1.PostgresDatabase, obs *observation) *pass {
	p := &pass{c: c, db: db, obs: obs, status: db.Status.DeepCopy(),
		entries: map[string]*pgv1.DatabaseStatus{}, problems: map[string]string{}}
	for _, d := range p.status.Databases {
		p.entries[d.Name] = d.DeepCopy()
	}
	for _, name := range specNames(db) {
		if p.entries[name] == nil {
			p.entries[name] = &pgv1.DatabaseStatus{Name: name}
		}
	}
	return p
}

// owner is this PostgresDatabase as the owner of its children.
func (p *pass) owner() controller.Owner {
	return ownerOf(p.db)
}

func ownerOf(db *pgv1.PostgresDatabase) controller.Owner {
	return controller.Owner{Kind: gvk.Kind, Name: db.Name, UID: db.UID, Cluster: db.Spec.ClusterRef.Name}
}

func (p *pass) entry(name string) *pgv1.DatabaseStatus { return p.entries[name] }

// problem records a database's first problem of the pass.
func (p *pass) problem(name, msg string) {
	if _, ok := p.problems[name]; !ok {
		p.problems[name] = msg
	}
}

// health is where a step stands.
type health = controller.Health

var (
	ready    = controller.Ready
	waiting  = controller.Waiting
	failed   = controller.Failed
	apiError = controller.APIError
)

// step is one stage of the linear pipeline and the condition it owns.
type step struct {
	condition string
	run       func(ctx context.Context, p *pass) health
}

// pipeline is the order of ADR-0002's database pipeline, but for the
// Secrets, which come first: they depend on nothing of the cluster, so a
// database created with its cluster has them while the cluster comes up.
var pipeline = []step{
	{pgv1.ConditionSecretsReady, secretsStep},
	{pgv1.ConditionClusterReady, clusterStep},
	{pgv1.ConditionConfigMapsReady, configMapsStep},
	{pgv1.ConditionRolesReady, rolesStep},
	{pgv1.ConditionDatabasesReady, databasesStep},
	{pgv1.ConditionPrivilegesReady, privilegesStep},
}

// outcome is the result of running the pipeline.
type outcome struct {
	blocker string // the condition of the first step not ready, if any
	health  health
}

// runPipeline walks the steps in order, recording each one's condition,
// and stops at the first that is not ready. The conditions after it are
// set False ("Blocked"): they describe the current generation, and a
// stale True would claim more than this pass verified.
func (p *pass) runPipeline(ctx context.Context) outcome {
	for i, s := range pipeline {
		h := s.run(ctx, p)
		p.record(s.condition, h)
		if h.Phase == pgv1.PhaseReady {
			continue
		}
		for _, later := range pipeline[i+1:] {
			controller.SetCondition(&p.status.Conditions, p.db.Generation, later.condition, false, pgv1.ReasonBlocked, "waiting for "+s.condition)
		}
		return outcome{blocker: s.condition, health: h}
	}
	return outcome{}
}

func (p *pass) record(condition string, h health) {
	controller.RecordCondition(&p.status.Conditions, p.db.Generation, condition, h)
}
