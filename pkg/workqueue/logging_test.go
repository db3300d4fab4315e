package workqueue

import (
	"errors"
	"strings"
	"testing"

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

	q.handle(ctx, key, Result{}, errors.New("apply CNPG Cluster: connection refused"))

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
