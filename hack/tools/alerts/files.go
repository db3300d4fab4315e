package alerts

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

// Where the rules and the dashboard live, from the repository's root: in
// the chart, whose prometheusrule.yaml template wraps the rules and whose
// package carries both; the release ships them as files of their own.
var (
	RulesFile     = filepath.Join("charts", "setpoint", "files", "alerts.yaml")
	DashboardFile = filepath.Join("charts", "setpoint", "files", "dashboard.json")
	ReferenceFile = filepath.Join("docs", "reference", "metrics.md")
)

// promQL is the parser Prometheus uses by default.
var promQL = parser.NewParser(parser.Options{})

// ParseRules reads a rule file as Prometheus does (unknown fields refused,
// every expression and template checked).
func ParseRules(content []byte) (*rulefmt.RuleGroups, error) {
	groups, errs := rulefmt.Parse(content, false, model.UTF8Validation, promQL, slog.New(slog.DiscardHandler))
	if len(errs) > 0 {
		return nil, fmt.Errorf("rules: %w", errors.Join(errs...))
	}
	return groups, nil
}

// Alerts are the alerting rules of groups, in order.
func Alerts(groups *rulefmt.RuleGroups) []rulefmt.Rule {
	var out []rulefmt.Rule
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				out = append(out, r)
			}
		}
	}
	return out
}
