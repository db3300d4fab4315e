package database

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// stateRooms names, for each step's state in the pass, the file that may
// touch it: the step's own (docs/adr/0009-components-own-their-pass-state.md,
// the cluster's TestComponentStateWrittenByItsOwner, for the database's
// steps).
var stateRooms = map[string]string{
	"secrets":    "step_secrets.go",
	"configMaps": "step_configmaps.go",
	"roles":      "step_roles.go",
	"databases":  "step_databases.go",
	"privileges": "step_privileges.go",
}

// TestStepStateTouchedOnlyByItsStep: what a step carries from its
// Reconcile to its Observe (p.secrets, p.roles, …) is read and written only
// in the step's file. Every field of pass whose type is named *State has
// its room here.
func TestStepStateTouchedOnlyByItsStep(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]int{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok {
				checkStepStateFields(t, g)
				continue
			}
			fd := d.(*ast.FuncDecl)
			passes := passNames(fd.Recv, fd.Type.Params)
			ast.Inspect(fd, func(n ast.Node) bool {
				if lit, ok := n.(*ast.FuncLit); ok {
					for k := range passNames(nil, lit.Type.Params) {
						passes[k] = true
					}
				}
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				room, owned := stateRooms[sel.Sel.Name]
				if !ok || !passes[x.Name] || !owned {
					return true
				}
				used[sel.Sel.Name]++
				if name != room {
					t.Errorf("%s: %s.%s is the state of the step in %s: only that file touches it",
						fset.Position(sel.Pos()), x.Name, sel.Sel.Name, room)
				}
				return true
			})
		}
	}
	for field := range stateRooms {
		if used[field] == 0 {
			t.Errorf("no file uses p.%s: the check would pass vacuously", field)
		}
	}
}

// passNames are the names of the receiver and parameters of type *pass.
func passNames(lists ...*ast.FieldList) map[string]bool {
	out := map[string]bool{}
	for _, l := range lists {
		if l == nil {
			continue
		}
		for _, f := range l.List {
			if s, ok := f.Type.(*ast.StarExpr); ok {
				if id, ok := s.X.(*ast.Ident); ok && id.Name == "pass" {
					for _, n := range f.Names {
						out[n.Name] = true
					}
				}
			}
		}
	}
	return out
}

// checkStepStateFields: every field of pass whose type is named *State
// is a step's state with a room in stateRooms.
func checkStepStateFields(t *testing.T, g *ast.GenDecl) {
	for _, s := range g.Specs {
		ts, ok := s.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "pass" {
			continue
		}
		for _, f := range ts.Type.(*ast.StructType).Fields.List {
			id, ok := f.Type.(*ast.Ident)
			if !ok || !strings.HasSuffix(id.Name, "State") {
				continue
			}
			for _, n := range f.Names {
				if _, ok := stateRooms[n.Name]; !ok {
					t.Errorf("pass.%s (%s) is a step's state with no room in stateRooms", n.Name, id.Name)
				}
			}
		}
	}
}
