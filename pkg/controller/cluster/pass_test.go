package cluster

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// stateRooms names, for each component's state in the pass, the files that
// may touch it: the component's file and the files sharing its prefix
// (docs/adr/0009-components-own-their-pass-state.md).
var stateRooms = map[string]func(file string) bool{
	"secret": func(f string) bool {
		return f == "component_secret.go" || strings.HasPrefix(f, "superuser_")
	},
	"provisioner": func(f string) bool {
		return f == "component_provisioner.go" || strings.HasPrefix(f, "provisioner_")
	},
	"certificates": func(f string) bool { return strings.HasPrefix(f, "certificates") },
	"monitor": func(f string) bool {
		return f == "component_monitor.go" || strings.HasPrefix(f, "monitor_")
	},
}

// TestComponentStateWrittenByItsOwner: a component's state in the pass
// (p.provisioner, p.secret, p.monitor) is read and written only by its own
// files; another component reads what it needs through the owner's
// contract or accessor (observedCNPG, appliedCNPG). Every field of pass
// whose type is a component's state has its room here.
func TestComponentStateWrittenByItsOwner(t *testing.T) {
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
				checkPassFields(t, g)
				continue
			}
			fd := d.(*ast.FuncDecl)
			passes := passParams(fd.Recv, fd.Type.Params)
			ast.Inspect(fd, func(n ast.Node) bool {
				if lit, ok := n.(*ast.FuncLit); ok {
					for k := range passParams(nil, lit.Type.Params) {
						passes[k] = true
					}
				}
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				room := stateRooms[sel.Sel.Name]
				if !ok || !passes[x.Name] || room == nil {
					return true
				}
				used[sel.Sel.Name]++
				if !room(name) {
					t.Errorf("%s: %s.%s is the %s component's state: read it through its contract or accessor",
						fset.Position(sel.Pos()), x.Name, sel.Sel.Name, sel.Sel.Name)
				}
				return true
			})
		}
	}
	for owner := range stateRooms {
		if used[owner] == 0 {
			t.Errorf("no file uses p.%s: the check would pass vacuously", owner)
		}
	}
}

// passParams are the names of the receiver and parameters of type *pass.
func passParams(lists ...*ast.FieldList) map[string]bool {
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

// checkPassFields: every field of pass whose type is named *State is a
// component's state with a room in stateRooms.
func checkPassFields(t *testing.T, g *ast.GenDecl) {
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
				if stateRooms[n.Name] == nil {
					t.Errorf("pass.%s (%s) is a component's state with no room in stateRooms", n.Name, id.Name)
				}
			}
		}
	}
}
