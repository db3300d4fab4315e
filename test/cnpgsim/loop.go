package cnpgsim

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// syncFunc reconciles one object. A positive requeue asks to look again
// after that long even without an event, which is how waits (healthy delay,
// an owner role that may appear) stay level-triggered without polling loops.
type syncFunc func(ctx context.Context, key cache.ObjectName) (requeue time.Duration, err error)

// loop is one kind's work queue and its workers.
type loop struct {
	name  string
	queue workqueue.TypedRateLimitingInterface[cache.ObjectName]
	sync  syncFunc
}

func newLoop(name string, sync syncFunc) *loop {
	return &loop{
		name: name,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](50*time.Millisecond, 5*time.Second),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "cnpgsim-" + name},
		),
		sync: sync,
	}
}

func (l *loop) add(key cache.ObjectName) { l.queue.Add(key) }

// enqueueObject is an event handler body: it keys any object, tombstones
// included.
func (l *loop) enqueueObject(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	key, err := cache.ObjectToName(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	l.add(key)
}

func (l *loop) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    l.enqueueObject,
		UpdateFunc: func(_, obj any) { l.enqueueObject(obj) },
		DeleteFunc: l.enqueueObject,
	}
}

// run starts the workers and blocks until ctx ends and they have drained.
func (l *loop) run(ctx context.Context, workers int) {
	defer l.queue.ShutDown()
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues("controller", l.name))
	done := make(chan struct{})
	for range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			wait.UntilWithContext(ctx, l.work, time.Second)
		}()
	}
	<-ctx.Done()
	l.queue.ShutDown()
	for range workers {
		<-done
	}
}

func (l *loop) work(ctx context.Context) {
	for l.next(ctx) {
	}
}

func (l *loop) next(ctx context.Context) bool {
	key, quit := l.queue.Get()
	if quit {
		return false
	}
	defer l.queue.Done(key)
	logger := klog.FromContext(ctx).WithValues(l.name, key.String())
	start := time.Now()
	requeue, err := l.sync(klog.NewContext(ctx, logger), key)
	logger.V(5).Info("Synced", "took", time.Since(start), "requeue", requeue, "err", err)
	switch {
	case err != nil && ctx.Err() == nil:
		logRetry(logger, err)
		l.queue.AddRateLimited(key)
	case requeue > 0:
		l.queue.Forget(key)
		l.queue.AddAfter(key, requeue)
	default:
		l.queue.Forget(key)
	}
	return true
}

// logRetry logs a failed sync that will be retried. A write that lost an
// optimistic-concurrency race (409 Conflict) is routine — the retry reads
// the newer object — so it shows only at -v=4; anything else shows at the
// default verbosity.
func logRetry(logger klog.Logger, err error) {
	if apierrors.IsConflict(err) {
		logger.V(4).Info("Sync lost a write race, will retry", "err", err)
		return
	}
	logger.Info("Sync failed, will retry", "err", err)
}
