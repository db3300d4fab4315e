package controller

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// reasonScan finds where a pass could put an undeclared reason or
// condition type into a status: a string literal in a reason position.
// It reads syntax only (go/ast, no type checking), so a position is
// known by name: a parameter, result, field or variable whose name
// contains "reason", or the conditionType of the apimachinery condition
// helpers and metav1.Condition's Type. Besides, any literal that spells
// a declared reason is reported wherever it stands (a map key, a case),
// since it would drift from the constant unseen.
type reasonScan struct {
	fset *token.FileSet
	// declared are the declared reason and condition strings.
	declared map[string]bool
	// params are, by function name, the indexes of reason-ish parameters
	// of the scanned declarations (and of the recorder's Event methods).
	params map[string][]int
	// structs are, by type name, the field names of scanned structs, for
	// unkeyed literals.
	structs map[string][]string
	// positions counts the reason positions checked, so that a scan
	// which stopped recognizing them (a renamed parameter) is noticed.
	positions int
	found     []string
}

// eventRecorderReasons are record.EventRecorder's methods, by the index
// of their reason argument: the Event vocabulary.
var eventRecorderReasons = map[string]int{"Event": 2, "Eventf": 2, "AnnotatedEventf": 3}

// conditionHelpers are k8s.io/apimachinery/pkg/api/meta's helpers, by
// the index of their conditionType argument.
var conditionHelpers = map[string]int{
	"FindStatusCondition": 1, "RemoveStatusCondition": 1, "IsStatusConditionTrue": 1,
	"IsStatusConditionFalse": 1, "IsStatusConditionPresentAndEqual": 1,
}

func isReasonName(name string) bool { return strings.Contains(strings.ToLower(name), "reason") }

func isConditionName(name string) bool {
	return strings.Contains(strings.ToLower(name), "condition")
}

func newReasonScan(fset *token.FileSet, declared map[string]bool, files []*ast.File) *reasonScan {
	s := &reasonScan{fset: fset, declared: declared, params: map[string][]int{}, structs: map[string][]string{}}
	for name, i := range eventRecorderReasons {
		s.params[name] = []int{i}
	}
	for _, f := range files {
		s.collectDecls(f)
	}
	for _, f := range files {
		s.collectAliases(f)
	}
	return s
}

// collectDecls records the reason-ish parameters of every function and
// method, and the fields of every struct type.
func (s *reasonScan) collectDecls(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch d := n.(type) {
		case *ast.FuncDecl:
			if idx := reasonIndexes(d.Type.Params); len(idx) > 0 {
				s.params[d.Name.Name] = append(s.params[d.Name.Name], idx...)
			}
		case *ast.TypeSpec:
			if st, ok := d.Type.(*ast.StructType); ok {
				s.structs[d.Name.Name] = fieldNames(st.Fields)
			}
		}
		return true
	})
}

// collectAliases follows `var ready = controller.Ready` and
// `type health = controller.Health`, so the alias is checked as the
// original is.
func (s *reasonScan) collectAliases(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch d := n.(type) {
		case *ast.ValueSpec:
			for i, name := range d.Names {
				if i < len(d.Values) {
					if idx, ok := s.params[lastName(d.Values[i])]; ok {
						s.params[name.Name] = idx
					}
				}
			}
		case *ast.TypeSpec:
			if fields, ok := s.structs[lastName(d.Type)]; ok && d.Assign.IsValid() {
				s.structs[d.Name.Name] = fields
			}
		}
		return true
	})
}

func reasonIndexes(fl *ast.FieldList) []int {
	var idx []int
	for i, name := range fieldNames(fl) {
		if isReasonName(name) {
			idx = append(idx, i)
		}
	}
	return idx
}

// fieldNames flattens a field list: `a, b string` gives a and b; an
// unnamed field gives "".
func fieldNames(fl *ast.FieldList) []string {
	var names []string
	if fl == nil {
		return nil
	}
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			names = append(names, lastName(f.Type))
		}
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	return names
}

// lastName is the name an expression ends with: x for x, Sel for a.Sel,
// the callee's for a call.
func lastName(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.Ident:
		return v.Name
	case *ast.SelectorExpr:
		return v.Sel.Name
	case *ast.StarExpr:
		return lastName(v.X)
	case *ast.CallExpr:
		return lastName(v.Fun)
	}
	return ""
}

func (s *reasonScan) report(n ast.Node, format string, args ...any) {
	s.found = append(s.found, s.fset.Position(n.Pos()).String()+": "+fmt.Sprintf(format, args...))
}

// literal reports a string literal anywhere inside e, which stands in a
// reason position described by where.
func (s *reasonScan) literal(e ast.Expr, where string) {
	s.positions++
	ast.Inspect(e, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			// "" is no reason: a sub-step that has nothing to say, or a
			// test for an unset reason; RecordCondition writes the
			// phase instead.
			if lit.Value == `""` {
				return false
			}
			s.report(lit, "string literal %s as %s: declare it in pkg/apis/postgres/v1alpha1 and use the constant", lit.Value, where)
			return false
		}
		// A function literal's body is its own code, scanned on its own.
		_, isFunc := n.(*ast.FuncLit)
		return !isFunc
	})
}

// scan checks one file.
func (s *reasonScan) scan(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch v := n.(type) {
		case *ast.FuncDecl:
			s.results(v.Name.Name, v.Type, v.Body)
		case *ast.FuncLit:
			s.results("", v.Type, v.Body)
		case *ast.CallExpr:
			s.call(v)
		case *ast.CompositeLit:
			s.composite(v)
		case *ast.AssignStmt:
			s.assign(v.Lhs, v.Rhs)
		case *ast.ValueSpec:
			// A reason or condition type declared here rather than in
			// the API package is as undeclared as a literal.
			for i, name := range v.Names {
				if i < len(v.Values) && (isReasonName(name.Name) || isConditionName(name.Name)) {
					s.literal(v.Values[i], name.Name)
				}
			}
		case *ast.BinaryExpr:
			s.compare(v)
		case *ast.SwitchStmt:
			s.switchCases(v)
		case *ast.BasicLit:
			s.spelled(v)
		}
		return true
	})
}

func (s *reasonScan) call(c *ast.CallExpr) {
	name := lastName(c.Fun)
	for _, i := range s.params[name] {
		if i < len(c.Args) {
			s.literal(c.Args[i], "the reason of "+name)
		}
	}
	if i, ok := conditionHelpers[name]; ok && i < len(c.Args) {
		s.literal(c.Args[i], "the condition type of "+name)
	}
}

func (s *reasonScan) composite(c *ast.CompositeLit) {
	typ := lastName(c.Type)
	fields := s.structs[typ]
	for i, el := range c.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			key := lastName(kv.Key)
			if isReasonName(key) || (typ == "Condition" && key == "Type") {
				s.literal(kv.Value, typ+"."+key)
			}
			continue
		}
		if i < len(fields) && isReasonName(fields[i]) {
			s.literal(el, typ+"."+fields[i])
		}
	}
}

func (s *reasonScan) assign(lhs, rhs []ast.Expr) {
	if len(lhs) != len(rhs) {
		return
	}
	for i, l := range lhs {
		if name := lastName(l); isReasonName(name) {
			s.literal(rhs[i], name)
		}
	}
}

func (s *reasonScan) compare(b *ast.BinaryExpr) {
	if b.Op != token.EQL && b.Op != token.NEQ {
		return
	}
	if isReasonName(lastName(b.X)) {
		s.literal(b.Y, "a comparison with "+lastName(b.X))
	}
	if isReasonName(lastName(b.Y)) {
		s.literal(b.X, "a comparison with "+lastName(b.Y))
	}
}

func (s *reasonScan) switchCases(sw *ast.SwitchStmt) {
	if sw.Tag == nil || !isReasonName(lastName(sw.Tag)) {
		return
	}
	for _, st := range sw.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			s.literal(e, "a case of "+lastName(sw.Tag))
		}
	}
}

// results checks what a function returns as a reason: the results named
// reason-ish, or the only result of a function named so.
func (s *reasonScan) results(name string, ft *ast.FuncType, body *ast.BlockStmt) {
	if body == nil || ft.Results == nil {
		return
	}
	idx := reasonIndexes(ft.Results)
	if len(idx) == 0 && isReasonName(name) && len(fieldNames(ft.Results)) == 1 {
		idx = []int{0}
	}
	if len(idx) == 0 {
		return
	}
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if r, ok := n.(*ast.ReturnStmt); ok {
			for _, i := range idx {
				if i < len(r.Results) {
					s.literal(r.Results[i], "the reason "+name+" returns")
				}
			}
		}
		return true
	})
}

// spelled reports a literal that spells a declared reason or condition.
func (s *reasonScan) spelled(lit *ast.BasicLit) {
	if lit.Kind != token.STRING {
		return
	}
	if v, err := strconv.Unquote(lit.Value); err == nil && s.declared[v] {
		s.report(lit, "string literal %s spells a declared reason or condition: use the constant", lit.Value)
	}
}

// findings are the sorted, deduplicated reports.
func (s *reasonScan) findings() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range s.found {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}
