package controller

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
