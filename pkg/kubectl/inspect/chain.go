package inspect

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// ClusterChain is the order of a PostgresCluster's components (the
// pipeline of docs/adr/0002-component-pipelines.md): a pass stops at the
// first one not Ready and marks the rest Blocked
// (docs/adr/0005-conditions-after-a-blocker.md), so the first condition
// of this list that is not True is the one to look at.
var ClusterChain = pgv1.ClusterConditions

// DatabaseChain is the order of a PostgresDatabase's steps.
var DatabaseChain = pgv1.DatabaseConditions

// Condition is one status condition as the plugin reports it: a stable
// shape for -o json|yaml, independent of metav1.Condition's bookkeeping.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ordered returns conds in chain order, then Ready, then any other
// condition (health conditions, PasswordRotation) in their own order.
func ordered(conds []metav1.Condition, chain []string) []Condition {
	byType := map[string]metav1.Condition{}
	for _, c := range conds {
		byType[c.Type] = c
	}
	var out []Condition
	seen := map[string]bool{}
	for _, t := range append(append([]string{}, chain...), pgv1.ConditionReady) {
		if c, ok := byType[t]; ok {
			out = append(out, fromMeta(c))
			seen[t] = true
		}
	}
	for _, c := range conds {
		if !seen[c.Type] {
			out = append(out, fromMeta(c))
		}
	}
	return out
}

func fromMeta(c metav1.Condition) Condition {
	return Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message}
}

// firstUnmet returns the first condition of chain, in chain order, that is
// present and not True; failing that Ready when it is not True; and false
// when nothing is unmet. Missing steps are skipped: a pass that stops at a
// step writes no condition for the ones after it, so the blocking step is
// the first present one that is not True.
func firstUnmet(conds []metav1.Condition, chain []string) (metav1.Condition, bool) {
	byType := map[string]metav1.Condition{}
	for _, c := range conds {
		byType[c.Type] = c
	}
	for _, t := range chain {
		if c, ok := byType[t]; ok && c.Status != metav1.ConditionTrue {
			return c, true
		}
	}
	if c, ok := byType[pgv1.ConditionReady]; ok && c.Status != metav1.ConditionTrue {
		return c, true
	}
	return metav1.Condition{}, false
}
