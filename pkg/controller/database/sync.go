package database

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cachelag"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// sync is one pass for one PostgresDatabase.
func (c *Controller) sync(ctx context.Context, key workqueue.Key) (workqueue.Result, error) {
	db, err := c.databases.PostgresDatabases(key.Namespace).Get(key.Name)
	name := types.NamespacedName{Namespace: key.Namespace, Name: key.Name}
	if apierrors.IsNotFound(err) {
		c.stale.clear(name)
		c.drift.clear(name)
		c.expect.Forget(name)
		return workqueue.Result{}, nil // children go with their owner references
	}
	if err != nil {
		return workqueue.Result{}, err
	}
	if !c.expect.CaughtUp(name, cachelag.At(db.ResourceVersion), c.deps.clock.Now()) {
		// The cache has not seen our last write of this object yet: a pass
		// now would work from what that write replaced (cachelag.Expectations).
		return workqueue.Result{RequeueAfter: cachelag.CacheLagRecheck}, nil
	}
	obs, err := c.observe(ctx, db)
	if err != nil {
		return workqueue.Result{}, fmt.Errorf("observe: %w", err)
	}
	if obs.cluster == nil {
		c.cas.Forget(clusterNS(db), naming.CASecret(db.Spec.ClusterRef.Name)) // a new cluster brings a new CA
	}
	if db.DeletionTimestamp != nil {
		return c.finalize(ctx, db, obs)
	}
	if err := c.validateNames(db); err != nil {
		p := newPass(&c.deps, db, obs)
		p.setPhase(pgv1.PhaseFailed, pgv1.ReasonInvalidName, err.Error())
		if werr := c.writeStatus(ctx, db, p.status); werr != nil {
			return workqueue.Result{}, werr
		}
		// Permanent until the spec changes, which wakes us.
		return workqueue.Result{}, workqueue.Terminal(err)
	}
	before := db.ResourceVersion
	p := newPass(&c.deps, db, obs)
	// Across namespaces, before anything is written (admission.go).
	if res, done, err := c.admission(ctx, p); done {
		return res, err
	}
	if db, err = c.addFinalizer(ctx, db, p.createMissingSecrets); err != nil {
		return workqueue.Result{}, err
	}
	p.db = db
	c.expect.Updated(name, before, db.ResourceVersion)
	out, err := pipeline.Run(ctx, stages, p)
	if err != nil {
		return workqueue.Result{}, err // a wiring bug: loud, with backoff
	}
	removal := p.cleanupRemoved(ctx)
	p.conclude(out, removal)
	if wait, ok := p.deferredWrite(out, removal); ok {
		// The event that ends this wait brings the next step or Ready; the
		// requeue writes the wait if the bound runs out first.
		return workqueue.Result{RequeueAfter: pipeline.Soonest(wait, out.RequeueAfter)}, nil
	}
	if err := c.writeStatus(ctx, db, p.status); err != nil {
		return workqueue.Result{}, err
	}
	if out.Err != nil {
		return workqueue.Result{}, out.Err
	}
	if removal.Err != nil {
		return workqueue.Result{}, removal.Err
	}
	return workqueue.Result{
		RequeueAfter: pipeline.Soonest(out.RequeueAfter, removal.RequeueAfter),
		Failed:       p.status.Phase == pgv1.PhaseFailed,
	}, nil
}

// cleanupRemoved runs the deletion policy of the databases that left the
// spec, and reports the first one still in progress.
func (p *pass) cleanupRemoved(ctx context.Context) health {
	var hs []health
	for _, name := range p.obs.removed {
		if p.entries[name] == nil {
			p.entries[name] = &pgv1.DatabaseStatus{Name: name}
		}
		if h := p.cleanup(ctx, name, p.removedPolicy(name)); h.Phase != pgv1.PhaseReady {
			hs = append(hs, h)
		}
	}
	return worst(hs)
}

// conclude sets phase, Ready and the per-database entries from the
// pipeline's outcome and the removal of databases that left the spec.
func (p *pass) conclude(out pipeline.Outcome, removal health) {
	for name := range p.entries {
		if !slices.Contains(specNames(p.db), name) && !slices.Contains(p.obs.removed, name) {
			delete(p.entries, name) // a stale entry: nothing left to clean
		}
	}
	for _, name := range specNames(p.db) {
		e := p.entries[name]
		msg, own := p.problems[name]
		if !own && out.Blocker != "" {
			msg = "waiting for " + out.Blocker
		}
		e.Ready, e.Message = msg == "", msg
	}
	p.status.Databases = p.orderedEntries()
	done := ready(pgv1.ReasonAllReady, fmt.Sprintf("%d database(s) ready", len(p.db.Spec.Databases)))
	if !removal.IsReady() {
		done = waiting(pgv1.PhaseProvisioning, removal.Reason, removal.Message, 0)
	}
	p.Status().Conclude(out, done)
}

// orderedEntries lists the entries in spec order, then the databases
// being removed by name: a stable order keeps unchanged status equal.
func (p *pass) orderedEntries() []pgv1.DatabaseStatus {
	var out []pgv1.DatabaseStatus
	for _, name := range specNames(p.db) {
		if e := p.entries[name]; e != nil { // nil once a deletion finished it
			out = append(out, *e)
		}
	}
	var rest []string
	for name := range p.entries {
		if !slices.Contains(specNames(p.db), name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	for _, name := range rest {
		out = append(out, *p.entries[name])
	}
	return out
}
