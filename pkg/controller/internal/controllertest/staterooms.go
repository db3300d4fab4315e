package controllertest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// StateRooms names, for each field of a controller's pass that is one
// stage's state (a cluster component's, a database step's), the files
// that may touch it: its room. Both controllers keep a stage's state out
// of the other stages' hands (docs/adr/0009-components-own-their-pass-state.md),
// and one checker holds them both to it, so the rule cannot drift apart
// between them.
type StateRooms map[string]func(file string) bool

// InFiles is a room of exactly the files named.
func InFiles(names ...string) func(file string) bool {
	return func(file string) bool {
		for _, n := range names {
			if file == n {
				return true
			}
		}
		return false
	}
}

// CheckStateRooms parses the Go files of the package in dir (tests left
// out) and fails t where a function given a *pass — as receiver, as a
// parameter, or as a parameter of a function literal in it — touches a
// field of rooms outside that field's room. It also fails where a field
// of pass whose type is named *State has no room (a new stage's state
// would escape the check) and where a room's field is never touched
// (the check would pass vacuously). stage names what owns a state in the
// messages ("component", "step").
func CheckStateRooms(t testing.TB, dir string, rooms StateRooms, stage string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	used := map[string]int{}
	for _, path := range files {
		name := filepath.Base(path)
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				checkStateFields(t, d, rooms, stage)
			case *ast.FuncDecl:
				checkStateUses(t, fset, d, name, rooms, stage, used)
			}
		}
	}
	for field := range rooms {
		if used[field] == 0 {
			t.Errorf("no file uses p.%s: the check would pass vacuously", field)
		}
	}
}

// checkStateUses fails t where fd, in file, touches a state of rooms
// through a *pass outside the state's room, and counts the uses.
func checkStateUses(t testing.TB, fset *token.FileSet, fd *ast.FuncDecl, file string, rooms StateRooms, stage string, used map[string]int) {
	t.Helper()
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
		room := rooms[sel.Sel.Name]
		if !ok || !passes[x.Name] || room == nil {
			return true
		}
		used[sel.Sel.Name]++
		if !room(file) {
			t.Errorf("%s: %s.%s is the state of the %s %s: only its own files touch it; another reads what it needs through the owner's contract or accessor",
				fset.Position(sel.Pos()), x.Name, sel.Sel.Name, sel.Sel.Name, stage)
		}
		return true
	})
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

// checkStateFields fails t where a field of type pass in g, whose type is
// named *State, has no room.
func checkStateFields(t testing.TB, g *ast.GenDecl, rooms StateRooms, stage string) {
	t.Helper()
	for _, s := range g.Specs {
		ts, ok := s.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "pass" {
			continue
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			id, ok := f.Type.(*ast.Ident)
			if !ok || !strings.HasSuffix(id.Name, "State") {
				continue
			}
			for _, n := range f.Names {
				if rooms[n.Name] == nil {
					t.Errorf("pass.%s (%s) is a %s's state with no room", n.Name, id.Name, stage)
				}
			}
		}
	}
}
