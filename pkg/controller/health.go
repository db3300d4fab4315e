package controller

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Health is where one stage of a pipeline stands after a pass — a
// component of the cluster pipeline or a step of the database pipeline
// (ADR-0002). Both pipelines speak it, so a reason means the same in both.
type Health struct {
	// Phase is Ready, Pending, Provisioning, Configuring, Deleting or Failed.
	Phase   pgv1.Phase
	Reason  string
	Message string
	// RequeueAfter asks for a recheck: an expected wait, or the slow
	// recheck of a Failed state whose fix may send no event.
	RequeueAfter time.Duration
	// Err, when set, is returned once status is written so the key is
	// retried with backoff: a transient API error.
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

// RecordCondition sets a stage's condition from its health at generation.
func RecordCondition(conds *[]metav1.Condition, generation int64, condition string, h Health) {
	reason := h.Reason
	if reason == "" {
		reason = string(h.Phase)
	}
	SetCondition(conds, generation, condition, h.Phase == pgv1.PhaseReady, reason, h.Message)
}
