package inspect

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Upgrade is the cluster's major upgrade while it runs or after it failed,
// with what to do. Like backup health it is reported beside Ready, not as
// what blocks it: a cluster in its preflight, or back on its old major
// after a failure, serves and reads Ready (docs/guides/upgrading.md).
type Upgrade struct {
	From      int32     `json:"from"`
	To        int32     `json:"to"`
	Phase     string    `json:"phase"`
	Condition Condition `json:"condition"`
	Advice    string    `json:"advice,omitempty"`
}

// majorUpgrade is the upgrade while its MajorUpgrade condition is not
// True, nil when there is none or it succeeded.
func majorUpgrade(st pgv1.PostgresClusterStatus) *Upgrade {
	u := st.Upgrade
	if u == nil {
		return nil
	}
	for _, c := range st.Conditions {
		if c.Type == pgv1.ConditionMajorUpgrade && c.Status != metav1.ConditionTrue {
			return &Upgrade{From: u.From, To: u.To, Phase: string(u.Phase), Condition: fromMeta(c), Advice: AdviceFor(c.Type, c.Reason)}
		}
	}
	return nil
}

// writeUpgrade adds an upgrade under way or failed, with what to do.
func writeUpgrade(p func(format string, a ...any), u *Upgrade) {
	if u == nil {
		return
	}
	c := u.Condition
	p("  upgrade:     %d -> %d %s: %s=%s %s: %s", u.From, u.To, u.Phase, c.Type, c.Status, c.Reason, c.Message)
	if u.Advice != "" {
		p("  what to do:  %s", u.Advice)
	}
}
