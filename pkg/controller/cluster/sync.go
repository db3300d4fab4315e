package cluster

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cachelag"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/throttle"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// sync is one pass for one PostgresCluster.
func (c *Controller) sync(ctx context.Context, key workqueue.Key) (workqueue.Result, error) {
	// Every database of the cluster waits on its passes: their requests go
	// first through the client's rate limiter.
	ctx = throttle.Urgent(ctx)
	if key.Namespace == "" {
		return c.syncClass(ctx, key.Name)
	}
	pc, err := c.clusters.PostgresClusters(key.Namespace).Get(key.Name)
	name := types.NamespacedName{Namespace: key.Namespace, Name: key.Name}
	if apierrors.IsNotFound(err) {
		c.cas.Forget(key.Namespace, naming.CASecret(key.Name))
		c.expect.Forget(name)
		c.deps.settle.forget(name)
		c.deps.backupMetrics.Forget(name)
		return workqueue.Result{}, nil // children go with their owner references
	}
	if err != nil {
		return workqueue.Result{}, err
	}
	if !c.expect.CaughtUp(name, cachelag.At(pc.ResourceVersion), c.deps.clock.Now()) {
		// The cache has not seen our last write of this cluster yet: a pass
		// now would redo work on what that write replaced, and its status
		// write could only conflict (cachelag.Expectations).
		return workqueue.Result{RequeueAfter: cachelag.CacheLagRecheck}, nil
	}
	if pc.DeletionTimestamp != nil {
		c.deps.backupMetrics.Forget(name)
		return c.finalize(ctx, pc)
	}
	before := pc.ResourceVersion
	if pc, err = ownership.AddFinalizer(ctx, c.deps.pg.PostgresV1alpha1().PostgresClusters(pc.Namespace), pc, Finalizer); err != nil {
		return workqueue.Result{}, err
	}
	c.expect.Updated(name, before, pc.ResourceVersion)
	obs, err := c.observe(ctx, pc)
	if err != nil {
		return workqueue.Result{}, fmt.Errorf("observe: %w", err)
	}
	p := &pass{cluster: pc, obs: obs, deps: c.deps, status: pc.Status.DeepCopy()}
	defer p.closeConn(ctx)

	want, err := resolveAgainst(pc, obs.class, obs.cnpg, c.deps.clock.Now())
	var invalid *specError
	if errors.As(err, &invalid) {
		p.setPhase(pgv1.PhaseFailed, invalid.reason, invalid.message)
		if _, werr := c.writeStatus(ctx, pc, p.status); werr != nil {
			return workqueue.Result{}, werr
		}
		// Permanent until the cluster or its class changes; both wake us.
		return workqueue.Result{}, workqueue.Terminal(err)
	}
	p.want = want
	if err := p.planUpgrade(ctx); err != nil {
		return workqueue.Result{}, fmt.Errorf("major upgrade: %w", err)
	}
	grow := p.planStorage(obs.sample)
	if err := c.ensureClassFinalizer(ctx, obs.class); err != nil {
		return workqueue.Result{}, err
	}

	out, err := pipeline.Run(ctx, c.components, p)
	if err != nil {
		return workqueue.Result{}, err // a wiring bug: loud, with backoff
	}
	grow = p.settleStorage(grow)
	backups := p.recordBackupHealth()
	st := conclude(&pc.Status, p.status, pc.Generation, out, obs.sample)
	if f := p.facts.facts; f != nil && f.err != nil {
		// The CA may have rotated: read it again next pass.
		c.cas.Forget(pc.Namespace, naming.CASecret(pc.Name))
	}
	if _, err := c.writeStatus(ctx, pc, st); err != nil {
		return workqueue.Result{}, err
	}
	c.storageEvents(ctx, pc, st, grow)
	c.exportBackupHealth(pc, st, backups)
	if out.Err != nil {
		// Status says what failed; the queue retries with backoff.
		return workqueue.Result{}, out.Err
	}
	requeue := pipeline.Soonest(pipeline.Soonest(out.RequeueAfter, grow.recheck), backupRecheck(backups))
	requeue = pipeline.Soonest(requeue, p.upgrade.recheck)
	return workqueue.Result{RequeueAfter: requeue, Failed: st.Phase == pgv1.PhaseFailed}, nil
}

func (p *pass) setPhase(phase pgv1.Phase, reason, message string) {
	p.Status().SetPhase(phase, reason, message)
}

// writeStatus is the pass's one status write (pipeline.StatusWriter).
func (c *Controller) writeStatus(ctx context.Context, pc *pgv1.PostgresCluster, st *pgv1.PostgresClusterStatus) (*pgv1.PostgresCluster, error) {
	return c.statusWriter().Write(ctx, pc, st)
}

func (c *Controller) statusWriter() pipeline.StatusWriter[*pgv1.PostgresCluster, pgv1.PostgresClusterStatus] {
	return pipeline.NewStatusWriter(c.deps.pg.PostgresV1alpha1().PostgresClusters, fieldManager, &c.expect, c.announce)
}

// announce tells people of a status change: the phase's Event, and the
// health conditions' (healthEvents).
func (c *Controller) announce(ctx context.Context, pc *pgv1.PostgresCluster, st *pgv1.PostgresClusterStatus) {
	c.phaseEvent(ctx, pc, st)
	c.healthEvents(pc, st)
	c.backupHealthEvents(pc, st)
}

func (c *Controller) phaseEvent(ctx context.Context, pc *pgv1.PostgresCluster, st *pgv1.PostgresClusterStatus) {
	typ, reason, msg, emit := pipeline.StatusEvent(pc.Status.Phase, st.Phase, pc.Status.Conditions, st.Conditions)
	if !emit {
		return
	}
	c.deps.recorder.Event(pc, typ, reason, msg)
	klog.FromContext(ctx).V(2).Info("Phase changed", "cluster", klog.KObj(pc), "from", pc.Status.Phase, "to", st.Phase, "event", reason)
}
