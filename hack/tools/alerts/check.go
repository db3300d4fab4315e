package alerts

import (
	"fmt"

	"github.com/prometheus/prometheus/model/rulefmt"
)

// CheckRules checks every rule's expression and every label its
// annotations name against ref; an alert also needs a runbook_url.
func CheckRules(groups *rulefmt.RuleGroups, ref Reference) []error {
	var errs []error
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			name := r.Alert + r.Record
			have, err := CheckExpr(r.Expr, ref)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
				continue
			}
			for k, v := range r.Annotations {
				errs = append(errs, checkTemplate(name+" annotation "+k, v, alertTemplateLabel, have)...)
			}
			if r.Alert != "" && r.Annotations["runbook_url"] == "" {
				errs = append(errs, fmt.Errorf("%s has no runbook_url", name))
			}
		}
	}
	return errs
}
