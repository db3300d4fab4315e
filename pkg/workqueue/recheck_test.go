package workqueue

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The delay a waiting or failed pass asks for is observed, so a test (or a
// person) can tell a poll from a slow recheck; passes that ask for nothing
// are not.
func TestRechecksAreObserved(t *testing.T) {
	reg := prometheus.NewRegistry()
	q := New(Options{Name: "rechecks", Metrics: NewMetrics(reg), RateLimiter: fastLimiter()})
	defer q.ShutDown()
	q.handle(t.Context(), key, Result{RequeueAfter: 5 * time.Second}, nil, 0)
	q.handle(t.Context(), key, Result{Failed: true, RequeueAfter: 2 * time.Minute}, nil, 0)
	q.handle(t.Context(), key, Result{}, nil, 0)
	q.handle(t.Context(), key, Result{}, errors.New("transient"), 0)
	want := `
# HELP setpoint_reconcile_recheck_seconds The recheck delay a pass asked for, by queue and outcome (wait or failed).
# TYPE setpoint_reconcile_recheck_seconds histogram
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="failed",le="1"} 0
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="failed",le="5"} 0
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="failed",le="15"} 0
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="failed",le="30"} 0
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="failed",le="60"} 0
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="failed",le="120"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="failed",le="300"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="failed",le="600"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="failed",le="1800"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="failed",le="+Inf"} 1
setpoint_reconcile_recheck_seconds_sum{name="rechecks",outcome="failed"} 120
setpoint_reconcile_recheck_seconds_count{name="rechecks",outcome="failed"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="wait",le="1"} 0
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="wait",le="5"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="wait",le="15"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="wait",le="30"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="wait",le="60"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="wait",le="120"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="wait",le="300"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="wait",le="600"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="wait",le="1800"} 1
setpoint_reconcile_recheck_seconds_bucket{name="rechecks",outcome="wait",le="+Inf"} 1
setpoint_reconcile_recheck_seconds_sum{name="rechecks",outcome="wait"} 5
setpoint_reconcile_recheck_seconds_count{name="rechecks",outcome="wait"} 1
`
	if err := testutil.CollectAndCompare(q.metrics.rechecks, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}
