package workqueue

import "errors"

// Outcome is the class a pass ends in. It decides what happens to the key,
// labels setpoint_reconcile_total and chooses the log line, so the three
// always agree.
type Outcome string

// The outcomes of a pass, as setpoint_reconcile_total's outcome label.
const (
	// OutcomeSuccess: converged; the key is forgotten (its backoff resets).
	OutcomeSuccess Outcome = "success"
	// OutcomeWait: an expected wait (Result.RequeueAfter); forgotten, then
	// queued again after the wait, without growing the backoff.
	OutcomeWait Outcome = "wait"
	// OutcomeRetry: a transient error; queued again with per-key
	// exponential backoff.
	OutcomeRetry Outcome = "retry"
	// OutcomeTerminal: an error retrying cannot fix (Terminal); forgotten
	// until the object changes.
	OutcomeTerminal Outcome = "terminal"
	// OutcomeFailed: the pass recorded the object as Failed (Result.Failed);
	// forgotten until the object changes or, with RequeueAfter, a slow
	// recheck.
	OutcomeFailed Outcome = "failed"
	// OutcomePanic: the pass panicked; retried with backoff like an error.
	OutcomePanic Outcome = "panic"
)

// classify is the one place that decides a pass's outcome. An error wins
// over the result; a terminal error over a Failed result; Failed over a
// wait, since a Failed object's recheck is not progress.
func classify(res Result, err error) Outcome {
	var p errPanic
	switch {
	case errors.As(err, &p):
		return OutcomePanic
	case err != nil && IsTerminal(err):
		return OutcomeTerminal
	case err != nil:
		return OutcomeRetry
	case res.Failed:
		return OutcomeFailed
	case res.RequeueAfter > 0:
		return OutcomeWait
	default:
		return OutcomeSuccess
	}
}
