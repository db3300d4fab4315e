package alerts

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// CheckExpr parses expr with promql/parser and checks that every metric it
// selects, and every label it matches on, groups by or joins on, is one
// ref lists. It returns the labels of the series it returns (what
// templates and legends may name).
func CheckExpr(expr string, ref Reference) (map[string]bool, error) {
	node, err := promQL.ParseExpr(expr)
	if err != nil {
		return nil, fmt.Errorf("parse %q: %w", expr, err)
	}
	var errs []string
	have := map[string]bool{}
	var used []string // labels named by grouping and matching
	parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
		switch n := n.(type) {
		case *parser.VectorSelector:
			errs = append(errs, checkSelector(n, ref, have)...)
		case *parser.AggregateExpr:
			used = append(used, n.Grouping...)
		case *parser.BinaryExpr:
			if vm := n.VectorMatching; vm != nil {
				used = append(append(used, vm.MatchingLabels...), vm.Include...)
			}
		}
		return nil
	})
	for _, l := range used {
		if !have[l] {
			errs = append(errs, fmt.Sprintf("label %q is on none of the series selected", l))
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		return nil, fmt.Errorf("%q: %s", expr, strings.Join(slices.Compact(errs), "; "))
	}
	return outputLabels(node, func(vs *parser.VectorSelector) map[string]bool {
		ls, _ := ref.Labels(selectorName(vs))
		return ls
	}), nil
}

// selectorName is the metric a selector selects, "" when it names none.
func selectorName(vs *parser.VectorSelector) string {
	for _, m := range vs.LabelMatchers {
		if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
			return m.Value
		}
	}
	return vs.Name
}

// checkSelector checks one selector's metric and matchers, adding its
// series' labels to have.
func checkSelector(vs *parser.VectorSelector, ref Reference, have map[string]bool) []string {
	name := selectorName(vs)
	if name == "" {
		return []string{fmt.Sprintf("selector %s names no metric", vs)}
	}
	ls, ok := ref.Labels(name)
	if !ok {
		return []string{fmt.Sprintf("metric %q is not exported by the operator", name)}
	}
	var errs []string
	for _, m := range vs.LabelMatchers {
		if m.Name != labels.MetricName && !ls[m.Name] {
			errs = append(errs, fmt.Sprintf("metric %q has no label %q", name, m.Name))
		}
	}
	for l := range ls {
		have[l] = true
	}
	return errs
}

// templateLabel is a label a template names: {{ $labels.x }} in an alert's
// annotations, {{x}} in a panel's legend.
var (
	alertTemplateLabel  = regexp.MustCompile(`\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)`)
	legendTemplateLabel = regexp.MustCompile(`\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}`)
)

// checkTemplate reports the labels text names that are not in have.
func checkTemplate(what, text string, re *regexp.Regexp, have map[string]bool) []error {
	var errs []error
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		if !have[m[1]] {
			errs = append(errs, fmt.Errorf("%s names label %q, which its expression's series do not carry", what, m[1]))
		}
	}
	return errs
}
