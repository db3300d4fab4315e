package controller

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// apiDir is the API package that declares the vocabulary.
const apiDir = "../apis/postgres/v1alpha1"

// vocabularyPrefixes name the declared constants the scan knows.
var vocabularyPrefixes = []string{"Reason", "Condition", "Event"}

// parseTree parses the non-test Go files under dir.
func parseTree(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	var files []*ast.File
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatalf("parse %s: %v", dir, err)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files under %s", dir)
	}
	return files
}

// vocabulary maps each declared constant of the API package to its value.
func vocabulary(files []*ast.File) map[string]string {
	consts := map[string]string{}
	for _, f := range files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !hasVocabularyPrefix(name.Name) || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						consts[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
	return consts
}

func hasVocabularyPrefix(name string) bool {
	for _, p := range vocabularyPrefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	return false
}

// scanSources runs the scan over files, with the values of consts
// declared; it returns the findings and how many positions it checked.
func scanSources(fset *token.FileSet, consts map[string]string, files []*ast.File) ([]string, int) {
	declared := map[string]bool{}
	for _, v := range consts {
		declared[v] = true
	}
	s := newReasonScan(fset, declared, files)
	for _, f := range files {
		s.scan(f)
	}
	return s.findings(), s.positions
}

// TestEveryReasonIsDeclared fails when a pass can write a reason or a
// condition type that pkg/apis/postgres/v1alpha1 does not declare.
func TestEveryReasonIsDeclared(t *testing.T) {
	fset := token.NewFileSet()
	consts := vocabulary(parseTree(t, fset, apiDir))
	if len(consts) < 50 {
		t.Fatalf("found %d vocabulary constants in %s, expected the whole vocabulary", len(consts), apiDir)
	}
	found, positions := scanSources(fset, consts, parseTree(t, fset, "."))
	for _, f := range found {
		t.Error(f)
	}
	// About 330 today: far fewer means the scan no longer recognizes
	// where reasons go, and would pass on anything.
	if positions < 250 {
		t.Errorf("the scan checked %d reason positions in pkg/controller, expected at least 250", positions)
	}
}

// TestEveryDeclaredReasonIsUsed fails on dead vocabulary: a constant
// of the API package that no operator code refers to documents a
// reason no user can see.
func TestEveryDeclaredReasonIsUsed(t *testing.T) {
	fset := token.NewFileSet()
	consts := vocabulary(parseTree(t, fset, apiDir))
	for _, name := range unusedConstants(consts, parseTree(t, fset, ".")) {
		t.Errorf("%s is declared in %s but the operator never uses it", name, apiDir)
	}
}

// unusedConstants are the constants no selector (pgv1.Name) in files
// names, sorted.
func unusedConstants(consts map[string]string, files []*ast.File) []string {
	used := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				used[sel.Sel.Name] = true
			}
			return true
		})
	}
	var out []string
	for name := range consts {
		if !used[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
