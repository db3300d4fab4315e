package workqueue

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Key identifies an object: namespace (empty for cluster-scoped) and name.
type Key = cache.ObjectName

// SyncFunc runs one reconcile pass for key.
type SyncFunc func(ctx context.Context, key Key) (Result, error)

// Options tune a Queue.
type Options struct {
	// Name labels the queue's metrics and logs.
	Name string
	// Metrics receives the queue's metrics; nil disables them.
	Metrics *Metrics
	// RateLimiter overrides client-go's default controller rate limiter
	// (per-key exponential backoff 5ms…1000s, overall 10 qps / 100 burst).
	RateLimiter workqueue.TypedRateLimiter[Key]
	// OnTerminal is called after a pass ends in a terminal error, for
	// example to count it; the pass itself records the error in status.
	OnTerminal func(key Key, err error)
}

// Queue is a named, rate-limited, deduplicating queue of object keys.
type Queue struct {
	name       string
	q          workqueue.TypedRateLimitingInterface[Key]
	metrics    *Metrics
	onTerminal func(Key, error)
	prio       *priorities
}

// New creates a queue.
func New(opts Options) *Queue {
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = workqueue.DefaultTypedControllerRateLimiter[Key]()
	}
	var mp workqueue.MetricsProvider
	if opts.Metrics != nil {
		mp = provider{opts.Metrics}
	}
	prio := &priorities{}
	fifo := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[Key]{
		Name: opts.Name, MetricsProvider: mp, Queue: newPriorityFIFO(prio)})
	delaying := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[Key]{
		Name: opts.Name, MetricsProvider: mp, Queue: fifo})
	return &Queue{
		name: opts.Name,
		q: workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[Key]{
			Name: opts.Name, MetricsProvider: mp, DelayingQueue: delaying}),
		metrics:    opts.Metrics,
		onTerminal: opts.OnTerminal,
		prio:       prio,
	}
}

// Add queues key now, at Normal: ahead of a resync of it (AddLater)
// queued or pending.
func (q *Queue) Add(key Key) { q.AddWith(Normal, key) }

// AddWith queues key now, ahead of the keys waiting at a lower Priority
// (Add's is Normal). A key already waiting moves up, never down.
func (q *Queue) AddWith(p Priority, key Key) {
	q.prio.raise(key, p)
	q.q.Add(key)
}

// AddLater queues key behind everything else waiting: for a periodic
// resync. A key already waiting keeps its place.
func (q *Queue) AddLater(key Key) { q.AddWith(Later, key) }

// AddUrgent is AddWith(Urgent, key).
func (q *Queue) AddUrgent(key Key) { q.AddWith(Urgent, key) }

// AddAfter queues key after d.
func (q *Queue) AddAfter(key Key, d time.Duration) { q.q.AddAfter(key, d) }

// Len is the number of keys waiting.
func (q *Queue) Len() int { return q.q.Len() }

// NumRequeues is how many rate-limited retries key has had since it last
// succeeded.
func (q *Queue) NumRequeues(key Key) int { return q.q.NumRequeues(key) }

// ShutDown stops the queue; workers finish their current key and return.
func (q *Queue) ShutDown() { q.q.ShutDownWithDrain() }

// Run starts workers that call sync for each key until ctx ends, then shuts
// the queue down and returns once every worker has finished its pass: the
// first phase of a graceful stop.
func (q *Queue) Run(ctx context.Context, workers int, reconcile SyncFunc) {
	logger := klog.FromContext(ctx).WithValues("queue", q.name)
	ctx = klog.NewContext(ctx, logger)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for q.processNext(ctx, reconcile) {
			}
		})
	}
	logger.V(2).Info("Started workers", "count", workers)
	<-ctx.Done()
	q.q.ShutDown()
	wg.Wait()
	logger.V(2).Info("Workers drained")
}

// processNext handles one key; it returns false when the queue is shut
// down or shutdown has begun. Once ctx ends a worker finishes only the pass
// in hand: keys still queued are not handed out, since every call they made
// would fail on the cancelled context and count as an error. They are not
// lost work: the next leader, or this process restarted, lists everything.
func (q *Queue) processNext(ctx context.Context, reconcile SyncFunc) bool {
	key, shutdown := q.q.Get()
	if shutdown {
		return false
	}
	defer q.q.Done(key)
	if ctx.Err() != nil {
		return false
	}
	start := time.Now()
	res, err := q.safeSync(ctx, key, reconcile)
	if err != nil && ctx.Err() != nil {
		// Cut short by the shutdown, not failed: no retry, no count.
		klog.FromContext(ctx).V(2).Info("Pass interrupted by shutdown", "key", key, "err", err)
		return false
	}
	q.handle(ctx, key, res, err, time.Since(start))
	return true
}

// errPanic marks a pass that panicked; it is retried with backoff.
type errPanic struct{ v any }

func (e errPanic) Error() string { return fmt.Sprintf("panic in reconcile: %v", e.v) }

// safeSync runs reconcile and turns a panic into an error, so one bad object
// cannot kill the process or wedge its key.
func (q *Queue) safeSync(ctx context.Context, key Key, reconcile SyncFunc) (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			utilruntime.HandleErrorWithContext(ctx, nil, "Observed a panic in reconcile", "key", key, "panic", r)
			err = errPanic{r}
		}
	}()
	return reconcile(klog.NewContext(ctx, klog.FromContext(ctx).WithValues("key", key)), key)
}

// handle applies the outcome of a pass to the key, counts it and logs it.
// took is the pass's length: on the log line, with the line's own time, it
// places the pass, so a key's passes can be read off the log (the bench's
// -operator-flag=-v=4).
func (q *Queue) handle(ctx context.Context, key Key, res Result, err error, took time.Duration) {
	logger := klog.FromContext(ctx).WithValues("key", key, "took", took.Round(time.Millisecond))
	outcome := classify(res, err)
	q.count(outcome)
	q.observeRecheck(outcome, res.RequeueAfter)
	switch outcome {
	case OutcomeRetry, OutcomePanic:
		q.q.AddRateLimited(key)
		logRetry(logger, err, outcome, q.q.NumRequeues(key))
	case OutcomeTerminal:
		q.q.Forget(key)
		logger.Info("Reconcile failed permanently; waiting for the object to change", "outcome", outcome, "err", err)
		if q.onTerminal != nil {
			q.onTerminal(key, err)
		}
	case OutcomeFailed:
		q.q.Forget(key)
		if res.RequeueAfter > 0 {
			q.q.AddAfter(key, res.RequeueAfter)
		}
		// The status says why; the object's own Events carry the detail.
		logger.Info("Object is Failed; waiting for a change", "outcome", outcome, "recheckAfter", res.RequeueAfter)
	case OutcomeWait:
		q.q.Forget(key)
		q.q.AddAfter(key, res.RequeueAfter)
		logger.V(4).Info("Reconcile waiting", "outcome", outcome, "after", res.RequeueAfter)
	default:
		q.q.Forget(key)
		logger.V(4).Info("Reconciled", "outcome", outcome)
	}
}

func (q *Queue) count(outcome Outcome) {
	if q.metrics != nil {
		q.metrics.outcomes.WithLabelValues(q.name, string(outcome)).Inc()
	}
}

func (q *Queue) observeRecheck(outcome Outcome, after time.Duration) {
	if q.metrics != nil && after > 0 && (outcome == OutcomeWait || outcome == OutcomeFailed) {
		q.metrics.rechecks.WithLabelValues(q.name, string(outcome)).Observe(after.Seconds())
	}
}

// routineConflicts is how many retries in a row a 409 Conflict may take
// before it is worth the default verbosity.
const routineConflicts = 3

// logRetry logs a pass that failed and will be retried. It is logged at
// the default verbosity, so an operator that keeps failing is never silent;
// the per-key backoff bounds how often. The exception is a write that lost
// an optimistic-concurrency race (409 Conflict): routine, since the retry
// reads the newer object, so it shows at -v=2 until it keeps happening.
func logRetry(logger klog.Logger, err error, outcome Outcome, retries int) {
	if apierrors.IsConflict(err) && retries <= routineConflicts {
		logger.V(2).Info("Reconcile lost a write race; retrying", "outcome", outcome, "retries", retries, "err", err)
		return
	}
	logger.Error(err, "Reconcile failed; retrying with backoff", "outcome", outcome, "retries", retries)
}
