package pipeline

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// PhaseEvent decides whether a phase change deserves an Event, and which.
// People care when an object becomes Ready, stops being Ready, or fails
// (or fails for another reason) — not about each intermediate step on
// the way, which the status and its conditions already show. Every Event
// is a write to the API server, paid by every user of a busy cluster.
func PhaseEvent(from, to pgv1.Phase, fromReason, toReason string) (typ, reason string, emit bool) {
	switch {
	case to == pgv1.PhaseFailed && (from != pgv1.PhaseFailed || fromReason != toReason):
		return "Warning", toReason, true
	case to == pgv1.PhaseReady && from != pgv1.PhaseReady:
		return "Normal", pgv1.EventReady, true
	case from == pgv1.PhaseReady && to != pgv1.PhaseReady && to != pgv1.PhaseDeleting:
		return "Warning", pgv1.EventNotReady, true
	}
	return "", "", false
}

// StatusEvent is PhaseEvent for a status write that moves an object from
// phase from (conditions before) to phase to (conditions after): the
// reasons and message come from the Ready conditions. Both controllers
// announce their status writes through it.
func StatusEvent(from, to pgv1.Phase, before, after []metav1.Condition) (typ, reason, message string, emit bool) {
	var fromReason, toReason, msg string
	if c := meta.FindStatusCondition(before, pgv1.ConditionReady); c != nil {
		fromReason = c.Reason
	}
	if c := meta.FindStatusCondition(after, pgv1.ConditionReady); c != nil {
		toReason, msg = c.Reason, c.Message
	}
	typ, reason, emit = PhaseEvent(from, to, fromReason, toReason)
	return typ, reason, fmt.Sprintf("phase %s -> %s: %s", orNone(from), to, msg), emit
}

func orNone(p pgv1.Phase) string {
	if p == "" {
		return "(none)"
	}
	return string(p)
}
