package informers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// client-go's ConfigMap lister still compiles against the Kube factory and
// would hand out the cached *corev1.ConfigMap, whose Data is our digest:
// the operator's code reads ConfigMaps through ConfigMapLister only. This
// catches the one way around the type.
func TestNoCodeTakesClientGosConfigMapLister(t *testing.T) {
	fset := token.NewFileSet()
	found := 0
	for _, root := range []string{"../..", "../../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && d.Name() == "generated":
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(path, ".go"):
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			found++
			for _, where := range clientGoConfigMapListers(fset, f) {
				t.Errorf("%s reads ConfigMaps through client-go's lister; use informers.ConfigMapLister", where)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if found < 100 {
		t.Fatalf("scanned %d Go files: the walk missed the operator's code", found)
	}
	// And the scan finds both ways in, planted.
	planted, err := parser.ParseFile(fset, "planted.go", `package p
import corelisters "k8s.io/client-go/listers/core/v1"
var a = core.ConfigMaps().Lister()
var b corelisters.ConfigMapLister = corelisters.NewConfigMapLister(idx)
var c = core.Secrets().Lister()`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := clientGoConfigMapListers(fset, planted); len(got) != 3 {
		t.Errorf("planted: found %v, want the three ConfigMap listers", got)
	}
}

// clientGoConfigMapListers are the places f takes client-go's ConfigMap
// lister: X.ConfigMaps().Lister(), or the listers package's ConfigMap
// names.
func clientGoConfigMapListers(fset *token.FileSet, f *ast.File) []string {
	listers := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != "k8s.io/client-go/listers/core/v1" {
			continue
		}
		name := "v1"
		if imp.Name != nil {
			name = imp.Name.Name
		}
		listers[name] = true
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && listers[x.Name] && strings.Contains(sel.Sel.Name, "ConfigMap") {
			out = append(out, fset.Position(sel.Pos()).String())
		}
		if call, ok := sel.X.(*ast.CallExpr); ok && sel.Sel.Name == "Lister" {
			if inner, ok := call.Fun.(*ast.SelectorExpr); ok && inner.Sel.Name == "ConfigMaps" {
				out = append(out, fset.Position(sel.Pos()).String())
			}
		}
		return true
	})
	return out
}
