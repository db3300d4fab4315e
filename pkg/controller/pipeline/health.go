package pipeline

import (
	"time"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Health is where one stage stands after a pass — a component of the
// cluster pipeline or a step of the database pipeline. Both pipelines
// speak it, so a reason means the same in both.
type Health struct {
	// Phase is Ready, Pending, Provisioning, Configuring, Deleting or Failed.
	Phase   pgv1.Phase
	Reason  string
	Message string
	// RequeueAfter asks for a recheck: an expected wait, or the slow
	// recheck of a Failed state whose fix may send no event.
	RequeueAfter time.Duration
	// Err, when set, is returned once status is written so the key is
	// retried with backoff: a transient API error. A Failed stage's Err
	// is ignored: its fix is a change by someone, not a retry.
	Err error
}

// Ready is a stage that is done.
func Ready(reason, message string) Health {
	return Health{Phase: pgv1.PhaseReady, Reason: reason, Message: message}
}

// Waiting is an expected wait in phase, looked at again after after.
func Waiting(phase pgv1.Phase, reason, message string, after time.Duration) Health {
	return Health{Phase: phase, Reason: reason, Message: message, RequeueAfter: after}
}

// Failed needs a change by someone; after is a slow recheck (0: none).
func Failed(reason, message string, after time.Duration) Health {
	return Health{Phase: pgv1.PhaseFailed, Reason: reason, Message: message, RequeueAfter: after}
}

// APIError is a transient failure of a write: Pending, retried with backoff.
func APIError(reason string, err error) Health {
	return Health{Phase: pgv1.PhasePending, Reason: reason, Message: err.Error(), Err: err}
}

// IsReady reports whether the stage is done.
func (h Health) IsReady() bool { return h.Phase == pgv1.PhaseReady }

// retryable is the error the pass returns for this stage, if any.
func (h Health) retryable() error {
	if h.Phase == pgv1.PhaseFailed {
		return nil
	}
	return h.Err
}

// Soonest is the earlier of two requeue intervals, where 0 means none.
func Soonest(a, b time.Duration) time.Duration {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}
