package collector

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// handler follows the PostgresClusters. A cluster that becomes eligible is
// sampled at once (its health is recorded right after it turns Ready);
// those already eligible when the operator starts are spread over one
// interval, so a restart does not open every connection at the same
// moment. A deleted cluster's sample and gauges go with it.
func (c *Collector) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			pc, ok := obj.(*pgv1.PostgresCluster)
			if !ok || !c.eligible(pc) {
				return
			}
			var delay time.Duration
			if initial {
				delay = rand.N(c.opts.Interval)
			}
			c.queue.AddAfter(keyOf(pc), delay)
		},
		UpdateFunc: func(_, obj any) {
			pc, ok := obj.(*pgv1.PostgresCluster)
			if ok && c.eligible(pc) && !c.sampled(keyOf(pc)) {
				c.queue.Add(keyOf(pc))
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if pc, ok := obj.(*pgv1.PostgresCluster); ok {
				c.forget(keyOf(pc))
			}
		},
	}
}

// eligible: a cluster is sampled from its first Ready on (or when status
// already holds a sample, after a restart) until it is deleted; a primary
// that stops makes CNPG report a failover, and that is exactly when the
// cluster must still be sampled.
func (c *Collector) eligible(pc *pgv1.PostgresCluster) bool {
	if pc.DeletionTimestamp != nil || pc.IsReplica() {
		return false
	}
	return pc.Status.Phase == pgv1.PhaseReady || pc.Status.Postgres != nil || c.sampled(keyOf(pc))
}

// Run samples until ctx ends (leadership lost, controllers stopping),
// calling wake with a cluster whose sample crossed an edge. On return the
// collector holds nothing: its samples and per-cluster gauges are gone,
// so a standby never exports stale figures.
func (c *Collector) Run(ctx context.Context, wake func(types.NamespacedName)) {
	logger := klog.FromContext(ctx).WithName("collector")
	ctx = klog.NewContext(ctx, logger)
	logger.Info("Starting the Postgres health collector", "interval", c.opts.Interval, "workers", c.opts.Workers)
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	var wg sync.WaitGroup
	for range c.opts.Workers {
		wg.Go(func() {
			for c.work(ctx, wake) {
			}
		})
	}
	wg.Wait()
	c.mu.Lock()
	for key := range c.samples {
		c.deps.Metrics.forget(key)
	}
	clear(c.samples)
	c.mu.Unlock()
	logger.Info("Stopped the Postgres health collector")
}

// work samples one cluster that is due; false once the queue shut down.
// The queue hands a key to one worker at a time, so a cluster never has
// two samples (two connections) in flight.
func (c *Collector) work(ctx context.Context, wake func(types.NamespacedName)) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	if ctx.Err() != nil {
		return false // stopping: what is still queued is not sampled
	}
	pc, err := c.clusters.PostgresClusters(key.Namespace).Get(key.Name)
	if err != nil {
		c.forget(key) // gone: the lister holds every cluster there is
		return true
	}
	if pc.IsReplica() {
		// Read-only, with the primary's roles and passwords replayed:
		// nothing of this site logs in. Forgotten, so that the update
		// that promotes it schedules it again.
		c.forget(key)
		return true
	}
	if !c.eligible(pc) {
		return true // an update that makes it eligible schedules it again
	}
	if c.collect(ctx, pc) {
		wake(key)
	}
	c.queue.AddAfter(key, c.jittered())
	return true
}

// jittered is the interval ±10 %.
func (c *Collector) jittered() time.Duration {
	d := c.opts.Interval
	return d - d/10 + rand.N(d/5+1)
}

func keyOf(pc *pgv1.PostgresCluster) types.NamespacedName {
	return types.NamespacedName{Namespace: pc.Namespace, Name: pc.Name}
}
