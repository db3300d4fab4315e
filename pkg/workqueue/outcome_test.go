package workqueue

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

func TestClassify(t *testing.T) {
	boom := errors.New("connection refused")
	for _, tc := range []struct {
		name string
		res  Result
		err  error
		want Outcome
	}{
		{"converged", Result{}, nil, OutcomeSuccess},
		{"waiting", Result{RequeueAfter: time.Second}, nil, OutcomeWait},
		{"error", Result{}, boom, OutcomeRetry},
		{"wrapped error", Result{}, fmt.Errorf("apply: %w", boom), OutcomeRetry},
		{"error beats a wait", Result{RequeueAfter: time.Second}, boom, OutcomeRetry},
		{"error beats Failed", Result{Failed: true}, boom, OutcomeRetry},
		{"terminal", Result{}, Terminal(boom), OutcomeTerminal},
		{"wrapped terminal", Result{}, fmt.Errorf("validate: %w", Terminal(boom)), OutcomeTerminal},
		{"terminal beats Failed", Result{Failed: true}, Terminal(boom), OutcomeTerminal},
		{"failed", Result{Failed: true}, nil, OutcomeFailed},
		{"failed with a slow recheck", Result{Failed: true, RequeueAfter: 2 * time.Minute}, nil, OutcomeFailed},
		{"panic", Result{}, errPanic{"nil map"}, OutcomePanic},
	} {
		if got := classify(tc.res, tc.err); got != tc.want {
			t.Errorf("%s: classify(%+v, %v) = %q, want %q", tc.name, tc.res, tc.err, got, tc.want)
		}
	}
}

// Each outcome is counted under its own label, and nothing else is.
func TestEachOutcomeIsCountedUnderItsName(t *testing.T) {
	for _, tc := range []struct {
		res  Result
		err  error
		want Outcome
	}{
		{Result{}, nil, OutcomeSuccess},
		{Result{RequeueAfter: time.Hour}, nil, OutcomeWait},
		{Result{}, errors.New("transient"), OutcomeRetry},
		{Result{}, Terminal(errors.New("bad spec")), OutcomeTerminal},
		{Result{Failed: true}, nil, OutcomeFailed},
		{Result{}, errPanic{"nil map"}, OutcomePanic},
	} {
		reg := prometheus.NewRegistry()
		q := New(Options{Name: "outcomes", Metrics: NewMetrics(reg), RateLimiter: fastLimiter()})
		q.handle(t.Context(), key, tc.res, tc.err, 0)
		q.ShutDown()
		if got := testutil.ToFloat64(q.metrics.outcomes.WithLabelValues("outcomes", string(tc.want))); got != 1 {
			t.Errorf("%s: counted %v times, want 1", tc.want, got)
		}
		if n := testutil.CollectAndCount(q.metrics.outcomes); n != 1 {
			t.Errorf("%s: %d outcome series, want exactly 1", tc.want, n)
		}
	}
}

// A Failed object is not retried with backoff: it waits for a change, or
// for the slow recheck it asked for.
func TestFailedWaitsForAChangeOrTheSlowRecheck(t *testing.T) {
	q := New(Options{Name: "failed", RateLimiter: fastLimiter()})
	r := newRecorder(func() (Result, error) { return Result{Failed: true}, nil })
	start(t, q, 1, r)
	q.Add(key)
	r.waitCalls(t, 1)
	if n := q.NumRequeues(key); n != 0 {
		t.Errorf("NumRequeues = %d after a Failed pass, want 0 (no backoff)", n)
	}
	if q.Len() != 0 {
		t.Errorf("queue length %d after a Failed pass without recheck, want 0", q.Len())
	}
	q.Add(key) // the object changes
	r.waitCalls(t, 2)

	q2 := New(Options{Name: "failed-recheck", RateLimiter: fastLimiter()})
	r2 := newRecorder(func() (Result, error) { return Result{Failed: true, RequeueAfter: 20 * time.Millisecond}, nil })
	start(t, q2, 1, r2)
	q2.Add(key)
	r2.waitCalls(t, 2) // the recheck came back by itself
}

// A Failed pass is logged at the default verbosity, as a failure: a Failed
// CNPG cluster must not read like a success in the logs.
func TestFailedIsLoggedAtDefaultVerbosity(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(0), ktesting.BufferLogs(true)))
	ctx := klog.NewContext(t.Context(), logger)
	q := New(Options{Name: "logged", RateLimiter: fastLimiter()})
	defer q.ShutDown()

	q.handle(ctx, key, Result{}, nil, 0)
	q.handle(ctx, key, Result{RequeueAfter: time.Hour}, nil, 0)
	q.handle(ctx, key, Result{Failed: true}, nil, 0)

	entries := logger.GetSink().(ktesting.Underlier).GetBuffer().Data()
	if len(entries) != 1 {
		t.Fatalf("got %d log entries at verbosity 0, want 1 (the Failed pass): %v", len(entries), entries)
	}
	if e := entries[0]; !contains(e.ParameterKVList, "outcome", OutcomeFailed) {
		t.Errorf("entry %q %v does not carry outcome=failed", e.Message, e.ParameterKVList)
	}
}

func contains(kv []any, k string, v any) bool {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == k && kv[i+1] == v {
			return true
		}
	}
	return false
}

// Once shutdown begins, keys still queued are not handed to workers with a
// cancelled context, and the pass the shutdown cut short is neither counted
// as an error nor retried.
func TestShutdownFinishesOnlyThePassInHand(t *testing.T) {
	reg := prometheus.NewRegistry()
	q := New(Options{Name: "shutdown", Metrics: NewMetrics(reg), RateLimiter: fastLimiter()})
	inPass := make(chan struct{})
	var calls []Key
	sync := func(ctx context.Context, k Key) (Result, error) {
		calls = append(calls, k)
		if len(calls) == 1 {
			close(inPass)
		}
		<-ctx.Done() // a pass in hand sees the shutdown
		return Result{}, fmt.Errorf("apply: %w", ctx.Err())
	}
	for i := range 4 {
		q.Add(Key{Namespace: "default", Name: fmt.Sprint("db-", i)})
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { q.Run(ctx, 1, sync); close(done) }()
	<-inPass
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after shutdown")
	}
	if len(calls) != 1 {
		t.Errorf("sync called for %v after shutdown began, want only the pass in hand", calls)
	}
	for _, o := range []Outcome{OutcomeRetry, OutcomeSuccess, OutcomeWait, OutcomeTerminal, OutcomeFailed, OutcomePanic} {
		if got := testutil.ToFloat64(q.metrics.outcomes.WithLabelValues("shutdown", string(o))); got != 0 {
			t.Errorf("outcome %s counted %v times during shutdown, want 0", o, got)
		}
	}
}
