package alerts

import (
	"github.com/prometheus/prometheus/promql/parser"
)

// outputLabels are the labels the series node returns carry, as far as a
// template or legend may name them: a selector's labels, what an
// aggregation keeps, the left side of a binary operation (only the on
// labels of arithmetic on(...)), a function's argument's. labelsOf gives
// a metric's labels.
func outputLabels(node parser.Node, labelsOf func(*parser.VectorSelector) map[string]bool) map[string]bool {
	switch n := node.(type) {
	case *parser.VectorSelector:
		return labelsOf(n)
	case *parser.MatrixSelector:
		return outputLabels(n.VectorSelector, labelsOf)
	case *parser.ParenExpr:
		return outputLabels(n.Expr, labelsOf)
	case *parser.StepInvariantExpr:
		return outputLabels(n.Expr, labelsOf)
	case *parser.UnaryExpr:
		return outputLabels(n.Expr, labelsOf)
	case *parser.SubqueryExpr:
		return outputLabels(n.Expr, labelsOf)
	case *parser.AggregateExpr:
		inner := outputLabels(n.Expr, labelsOf)
		switch {
		case n.Op == parser.TOPK || n.Op == parser.BOTTOMK || n.Op == parser.LIMITK:
			return inner
		case n.Without:
			out := map[string]bool{}
			for l := range inner {
				out[l] = true
			}
			for _, l := range n.Grouping {
				delete(out, l)
			}
			return out
		}
		return set(n.Grouping)
	case *parser.BinaryExpr:
		lhs := outputLabels(n.LHS, labelsOf)
		if n.Op == parser.LOR {
			for l := range outputLabels(n.RHS, labelsOf) {
				lhs[l] = true
			}
		}
		if vm := n.VectorMatching; vm != nil && vm.On && n.Op.IsOperator() && !n.Op.IsComparisonOperator() && !n.Op.IsSetOperator() && vm.Card == parser.CardOneToOne {
			return set(vm.MatchingLabels)
		}
		if n.LHS.Type() == parser.ValueTypeScalar { // 1 - x, time() - x
			return outputLabels(n.RHS, labelsOf)
		}
		return lhs
	case *parser.Call:
		for _, a := range n.Args {
			if t := a.Type(); t == parser.ValueTypeVector || t == parser.ValueTypeMatrix {
				return outputLabels(a, labelsOf)
			}
		}
	}
	return map[string]bool{}
}

func set(ls []string) map[string]bool {
	out := map[string]bool{}
	for _, l := range ls {
		out[l] = true
	}
	return out
}
