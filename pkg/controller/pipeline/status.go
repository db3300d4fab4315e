package pipeline

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Status is the part of a status a pipeline writes: the phase, the
// generation it describes and the conditions, of an object at Generation.
// Pointers into the status the pass builds.
type Status struct {
	Phase              *pgv1.Phase
	ObservedGeneration *int64
	Conditions         *[]metav1.Condition
	Generation         int64
}

// Record sets a stage's condition from its health.
func (s Status) Record(condition string, h Health) {
	reason := h.Reason
	if reason == "" {
		reason = string(h.Phase)
	}
	SetCondition(s.Conditions, s.Generation, condition, h.IsReady(), reason, h.Message)
}

// SetPhase sets phase, observedGeneration and the Ready condition, which
// is True only in phase Ready.
func (s Status) SetPhase(phase pgv1.Phase, reason, message string) {
	*s.Phase = phase
	*s.ObservedGeneration = s.Generation
	SetCondition(s.Conditions, s.Generation, pgv1.ConditionReady, phase == pgv1.PhaseReady, reason, message)
}

// Conclude sets the phase from the pipeline's outcome: the blocker's when
// a stage held it back, else done's. Only here is an object declared
// Ready.
func (s Status) Conclude(out Outcome, done Health) {
	if out.Blocker != "" {
		h := out.Health
		s.SetPhase(h.Phase, h.Reason, fmt.Sprintf("%s: %s", out.Blocker, h.Message))
		return
	}
	s.SetPhase(done.Phase, done.Reason, done.Message)
}

// SetCondition sets a condition, keeping its lastTransitionTime when the
// status did not change, so an unchanged pass yields an identical status.
func SetCondition(conds *[]metav1.Condition, generation int64, typ string, status bool, reason, message string) {
	s := metav1.ConditionFalse
	if status {
		s = metav1.ConditionTrue
	}
	meta.SetStatusCondition(conds, metav1.Condition{
		Type: typ, Status: s, Reason: reason, Message: message, ObservedGeneration: generation,
	})
}

// ConditionTrue reports whether a condition is True at generation.
func ConditionTrue(conds []metav1.Condition, typ string, generation int64) bool {
	c := meta.FindStatusCondition(conds, typ)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == generation
}
