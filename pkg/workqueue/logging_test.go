package workqueue

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

// A pass that fails and will be retried is logged at the default
// verbosity, with its error: an operator that keeps failing is never silent.
func TestRetriedErrorIsLoggedAtDefaultVerbosity(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(0), ktesting.BufferLogs(true)))
	ctx := klog.NewContext(t.Context(), logger)
	q := New(Options{Name: "logged", RateLimiter: fastLimiter()})
	defer q.ShutDown()

	q.handle(ctx, key, Result{}, errors.New("apply CNPG Cluster: connection refused"), 0)

	entries := logger.GetSink().(ktesting.Underlier).GetBuffer().Data()
	if len(entries) != 1 {
		t.Fatalf("got %d log entries at verbosity 0, want 1: %v", len(entries), entries)
	}
	e := entries[0]
	if e.Type != ktesting.LogError || e.Err == nil || !strings.Contains(e.Err.Error(), "connection refused") {
		t.Errorf("entry = %+v, want an error entry carrying the pass's error", e)
	}
	if !strings.Contains(e.Message, "retrying") {
		t.Errorf("message %q does not say the pass will be retried", e.Message)
	}
}

// A lost optimistic-concurrency race is routine and stays below the
// default verbosity, until it keeps happening.
func TestConflictIsQuietUntilItRepeats(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(0), ktesting.BufferLogs(true)))
	ctx := klog.NewContext(t.Context(), logger)
	q := New(Options{Name: "conflicts", RateLimiter: fastLimiter()})
	defer q.ShutDown()
	conflict := fmt.Errorf("update status: %w", apierrors.NewConflict(
		schema.GroupResource{Group: "postgres.setpoint.dev", Resource: "postgresclusters"}, "shop", errors.New("the object has been modified")))

	buffer := logger.GetSink().(ktesting.Underlier).GetBuffer()
	for range routineConflicts {
		q.handle(ctx, key, Result{}, conflict, 0)
	}
	if got := buffer.Data(); len(got) != 0 {
		t.Fatalf("%d routine conflicts logged at verbosity 0: %v", len(got), got)
	}
	q.handle(ctx, key, Result{}, conflict, 0)
	if got := buffer.Data(); len(got) != 1 || got[0].Type != ktesting.LogError {
		t.Errorf("a conflict repeated %d times: entries %v, want one error", routineConflicts+1, got)
	}
}
