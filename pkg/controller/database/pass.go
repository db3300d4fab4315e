package database

import (
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// pass is one reconcile pass of one PostgresDatabase: the object as read,
// the snapshot, and the status being built. Steps read and write only
// through it.
type pass struct {
	// deps are what steps use beyond the pass (deps.go); nothing else of
	// the Controller is in their reach.
	deps   *deps
	db     *pgv1.PostgresDatabase
	obs    *observation
	status *pgv1.PostgresDatabaseStatus
	// entries are the per-database status entries being built, by name.
	entries map[string]*pgv1.DatabaseStatus
	// problems is each database's first problem this pass, for its entry.
	problems map[string]string
	// rotation is what this pass did about a rotation request.
	rotation rotationReport

	// What each step carries from its Reconcile to its Observe, declared
	// in the step's file and touched only there (step.go).
	secrets    secretsState
	configMaps configMapsState
	roles      rolesState
	databases  databasesState
	privileges privilegesState
}

func newPass(d *deps, db *pgv1.PostgresDatabase, obs *observation) *pass {
	p := &pass{deps: d, db: db, obs: obs, status: db.Status.DeepCopy(),
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
func (p *pass) owner() ownership.Owner {
	return ownerOf(p.db)
}

func ownerOf(db *pgv1.PostgresDatabase) ownership.Owner {
	return ownership.Owner{Kind: gvk.Kind, Name: db.Name, UID: db.UID, Cluster: db.Spec.ClusterRef.Name}
}

func (p *pass) entry(name string) *pgv1.DatabaseStatus { return p.entries[name] }

// problem records a database's first problem of the pass.
func (p *pass) problem(name, msg string) {
	if _, ok := p.problems[name]; !ok {
		p.problems[name] = msg
	}
}

// health is where a step stands.
type health = pipeline.Health

var (
	ready    = pipeline.Ready
	waiting  = pipeline.Waiting
	failed   = pipeline.Failed
	apiError = pipeline.APIError
)

// Status is the status this pass builds, for the runner.
func (p *pass) Status() pipeline.Status {
	return pipeline.Status{Phase: &p.status.Phase, ObservedGeneration: &p.status.ObservedGeneration,
		Conditions: &p.status.Conditions, Generation: p.db.Generation}
}

// Has is false: no database step publishes a contract for a later one;
// each reads the snapshot.
func (p *pass) Has(pipeline.Contract) bool { return false }
