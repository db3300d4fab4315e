package alerts

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Dashboard is the part of a Grafana dashboard's JSON model that names
// metrics: its panels' queries and legends, and its variables' queries.
type Dashboard struct {
	Title      string  `json:"title"`
	UID        string  `json:"uid"`
	Panels     []Panel `json:"panels"`
	Templating struct {
		List []Variable `json:"list"`
	} `json:"templating"`
}

// Panel is a panel, or a row holding panels.
type Panel struct {
	Title   string   `json:"title"`
	Type    string   `json:"type"`
	Targets []Target `json:"targets"`
	Panels  []Panel  `json:"panels"`
}

// Target is one query of a panel.
type Target struct {
	Expr         string `json:"expr"`
	LegendFormat string `json:"legendFormat"`
}

// Variable is a dashboard variable; a query variable's query is
// label_values(metric, label).
type Variable struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Query any    `json:"query"` // a string, or {query: ...} in newer models
}

// ParseDashboard reads a dashboard's JSON model.
func ParseDashboard(data []byte) (Dashboard, error) {
	var d Dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		return d, fmt.Errorf("dashboard: %w", err)
	}
	return d, nil
}

// grafanaVar is a Grafana variable in a query: $x, ${x}, ${x:fmt}.
var grafanaVar = regexp.MustCompile(`\$\{?([a-zA-Z_][a-zA-Z0-9_]*)(?::[a-z]+)?\}?`)

// expand replaces Grafana's variables with what PromQL can parse: an
// interval for the interval variables, a plain word for the others (they
// stand in label values, inside quotes).
func expand(q string) string {
	return grafanaVar.ReplaceAllStringFunc(q, func(v string) string {
		if strings.HasPrefix(strings.Trim(v, "${}"), "__") {
			return "5m" // $__rate_interval, $__interval, $__range
		}
		return "x"
	})
}

var labelValues = regexp.MustCompile(`^label_values\(\s*(.+?)\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)$`)

// CheckDashboard checks every query and legend of d against ref; a
// dashboard without a panel query fails too.
func CheckDashboard(d Dashboard, ref Reference) []error {
	var errs []error
	queries := 0
	var walk func(ps []Panel)
	walk = func(ps []Panel) {
		for _, p := range ps {
			walk(p.Panels)
			for _, t := range p.Targets {
				queries++
				have, err := CheckExpr(expand(t.Expr), ref)
				if err != nil {
					errs = append(errs, fmt.Errorf("panel %q: %w", p.Title, err))
					continue
				}
				errs = append(errs, checkTemplate(fmt.Sprintf("panel %q legend", p.Title), t.LegendFormat, legendTemplateLabel, have)...)
			}
		}
	}
	walk(d.Panels)
	if queries == 0 {
		errs = append(errs, fmt.Errorf("dashboard %q has no panel query", d.Title))
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		q, _ := v.Query.(string)
		if m, ok := v.Query.(map[string]any); ok {
			q, _ = m["query"].(string)
		}
		m := labelValues.FindStringSubmatch(strings.TrimSpace(q))
		if m == nil {
			errs = append(errs, fmt.Errorf("variable %q: query %q is not label_values(metric, label)", v.Name, q))
			continue
		}
		have, err := CheckExpr(expand(m[1]), ref)
		if err != nil {
			errs = append(errs, fmt.Errorf("variable %q: %w", v.Name, err))
		} else if !have[m[2]] {
			errs = append(errs, fmt.Errorf("variable %q: label %q is not on %s", v.Name, m[2], m[1]))
		}
	}
	return errs
}
