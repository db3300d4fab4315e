package controller

import pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"

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
		return "Normal", "Ready", true
	case from == pgv1.PhaseReady && to != pgv1.PhaseReady && to != pgv1.PhaseDeleting:
		return "Warning", "NotReady", true
	}
	return "", "", false
}
