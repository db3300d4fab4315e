package workqueue

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/client-go/util/workqueue"
)

var key = Key{Namespace: "default", Name: "shop"}

// recorder is a SyncFunc whose outcomes the test scripts.
type recorder struct {
	mu      sync.Mutex
	calls   int
	script  []func() (Result, error)
	called  chan int
	running atomic.Int32
	overlap atomic.Bool
}

func newRecorder(script ...func() (Result, error)) *recorder {
	return &recorder{script: script, called: make(chan int, 100)}
}

func (r *recorder) sync(_ context.Context, _ Key) (Result, error) {
	if r.running.Add(1) > 1 {
		r.overlap.Store(true)
	}
	defer r.running.Add(-1)
	r.mu.Lock()
	n := r.calls
	r.calls++
	r.mu.Unlock()
	defer func() { r.called <- n + 1 }()
	if n < len(r.script) {
		return r.script[n]()
	}
	return Result{}, nil
}

// waitCalls waits until the recorder has been called n times.
func (r *recorder) waitCalls(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case got := <-r.called:
			if got >= n {
				return
			}
		case <-timeout:
			t.Fatalf("sync called fewer than %d times", n)
		}
	}
}

// expectNoCall fails if the recorder is called within d.
func (r *recorder) expectNoCall(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case n := <-r.called:
		t.Fatalf("unexpected call #%d", n)
	case <-time.After(d):
	}
}

func start(t *testing.T, q *Queue, workers int, r *recorder) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { q.Run(ctx, workers, r.sync); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func fastLimiter() workqueue.TypedRateLimiter[Key] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[Key](time.Millisecond, 50*time.Millisecond)
}

func TestSuccessForgetsKey(t *testing.T) {
	reg := prometheus.NewRegistry()
	q := New(Options{Name: "success", Metrics: NewMetrics(reg), RateLimiter: fastLimiter()})
	r := newRecorder()
	start(t, q, 1, r)
	q.Add(key)
	r.waitCalls(t, 1)
	r.expectNoCall(t, 100*time.Millisecond)
	if n := q.NumRequeues(key); n != 0 {
		t.Errorf("NumRequeues = %d after success, want 0", n)
	}
	if got := testutil.ToFloat64(q.metrics.outcomes.WithLabelValues("success", string(OutcomeSuccess))); got != 1 {
		t.Errorf("success outcomes = %v, want 1", got)
	}
}

func TestErrorRetriesWithBackoffThenForgets(t *testing.T) {
	q := New(Options{Name: "error", RateLimiter: fastLimiter()})
	boom := func() (Result, error) { return Result{}, errors.New("transient") }
	var requeuesSeen []int
	r := newRecorder(boom, boom, func() (Result, error) {
		requeuesSeen = append(requeuesSeen, q.NumRequeues(key))
		return Result{}, nil
	})
	start(t, q, 1, r)
	q.Add(key)
	r.waitCalls(t, 3)
	if len(requeuesSeen) != 1 || requeuesSeen[0] != 2 {
		t.Errorf("retries before the successful pass = %v, want [2]", requeuesSeen)
	}
	r.expectNoCall(t, 100*time.Millisecond)
	if n := q.NumRequeues(key); n != 0 {
		t.Errorf("NumRequeues = %d after eventual success, want 0 (Forget)", n)
	}
}

func TestRequeueAfterWaitsWithoutBackoff(t *testing.T) {
	q := New(Options{Name: "wait", RateLimiter: fastLimiter()})
	var requeues atomic.Int32
	wait := func() (Result, error) {
		requeues.Store(int32(q.NumRequeues(key)))
		return Result{RequeueAfter: 50 * time.Millisecond}, nil
	}
	r := newRecorder(wait, wait, wait)
	start(t, q, 1, r)
	q.Add(key)
	r.waitCalls(t, 3)
	if n := requeues.Load(); n != 0 {
		t.Errorf("a wait counted as %d failures; want 0", n)
	}
}

func TestTerminalErrorIsNotRetriedUntilObjectChanges(t *testing.T) {
	var terminal atomic.Int32
	q := New(Options{Name: "terminal", RateLimiter: fastLimiter(), OnTerminal: func(Key, error) { terminal.Add(1) }})
	r := newRecorder(func() (Result, error) {
		return Result{}, Terminal(errors.New("spec.class: class \"gold\" not found"))
	})
	start(t, q, 1, r)
	q.Add(key)
	r.waitCalls(t, 1)
	r.expectNoCall(t, 300*time.Millisecond)
	if terminal.Load() != 1 {
		t.Errorf("OnTerminal called %d times, want 1", terminal.Load())
	}
	// The object changes: an event adds the key again.
	q.Add(key)
	r.waitCalls(t, 2)
}

func TestPanicIsRecoveredAndRetried(t *testing.T) {
	q := New(Options{Name: "panic", RateLimiter: fastLimiter()})
	r := newRecorder(func() (Result, error) { panic("nil map") })
	start(t, q, 1, r)
	q.Add(key)
	r.waitCalls(t, 2)
}

func TestKeysAreDeduplicatedAndNeverProcessedConcurrently(t *testing.T) {
	q := New(Options{Name: "dedup", RateLimiter: fastLimiter()})
	for range 5 {
		q.Add(key)
	}
	if q.Len() != 1 {
		t.Fatalf("queue length %d after adding one key five times, want 1", q.Len())
	}
	release := make(chan struct{})
	slow := func() (Result, error) { <-release; return Result{}, nil }
	r := newRecorder(slow)
	start(t, q, 4, r)
	// While the first pass runs, the key is added again: it must wait for
	// the running pass instead of going to a second worker.
	time.Sleep(50 * time.Millisecond)
	q.Add(key)
	q.Add(key)
	time.Sleep(50 * time.Millisecond)
	close(release)
	r.waitCalls(t, 2)
	r.expectNoCall(t, 100*time.Millisecond)
	if r.overlap.Load() {
		t.Error("two workers processed the same key at once")
	}
}

func TestTerminalWrapsCause(t *testing.T) {
	cause := errors.New("bad spec")
	err := Terminal(cause)
	if !IsTerminal(err) || !errors.Is(err, cause) {
		t.Fatalf("Terminal(%v) lost its cause or its mark", cause)
	}
	if IsTerminal(cause) || Terminal(nil) != nil {
		t.Fatal("plain errors must not be terminal; Terminal(nil) must be nil")
	}
}
