package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// kind is a vocabulary, by the prefix of its constants' names, in the
// order the page lists them.
type kind struct {
	prefix, title, column string
}

var kinds = []kind{
	{"Condition", "Condition types", "Condition"},
	{"Reason", "Condition reasons", "Reason"},
	{"Event", "Event reasons", "Event reason"},
}

// entry is one constant: its value, what it means and what to do (as a
// sentence for the page; todo is the comment's own words, for the
// plugin's table).
type entry struct {
	name, value, meaning, action, todo string
}

// section is one titled const block.
type section struct {
	kind int
	// aside: the block lives in a file that is not only vocabulary (next
	// to the types it speaks of); such blocks come after the others.
	aside       bool
	title, text string
	entries     []entry
}

// whatToDo separates a comment's meaning from the user's action; every
// constant of the vocabulary has one.
const whatToDo = "What to do:"

// parseDir reads the vocabulary's const blocks of the package in dir.
func parseDir(dir string) ([]section, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var out []section
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		secs, err := parseFile(fset, filepath.Base(name), src)
		if err != nil {
			return nil, err
		}
		out = append(out, secs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no vocabulary constants in %s", dir)
	}
	slices.SortStableFunc(out, func(a, b section) int {
		if a.kind != b.kind {
			return a.kind - b.kind
		}
		return compareBool(a.aside, b.aside)
	})
	return out, nil
}

// parseFile reads the vocabulary's const blocks of one file.
func parseFile(fset *token.FileSet, name string, src []byte) ([]section, error) {
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []section
	aside := false
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			aside = aside || !isImport(decl)
			continue
		}
		sec, ok, err := parseBlock(gd)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fset.Position(gd.Pos()), err)
		}
		if !ok {
			aside = true
			continue
		}
		out = append(out, sec)
	}
	for i := range out {
		out[i].aside = aside
	}
	return out, nil
}

func isImport(decl ast.Decl) bool {
	gd, ok := decl.(*ast.GenDecl)
	return ok && gd.Tok == token.IMPORT
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// parseBlock reads a const block: false when it declares no vocabulary.
// Its comment's first paragraph is the section's title, the rest its
// text.
func parseBlock(gd *ast.GenDecl) (section, bool, error) {
	sec := section{kind: -1}
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, id := range vs.Names {
			k := kindOf(id.Name)
			if k < 0 {
				continue
			}
			if sec.kind >= 0 && sec.kind != k {
				return sec, false, fmt.Errorf("%s: a block holds one vocabulary (%s…)", id.Name, kinds[sec.kind].prefix)
			}
			sec.kind = k
			e, err := parseEntry(id.Name, vs, i)
			if err != nil {
				return sec, false, err
			}
			sec.entries = append(sec.entries, e)
		}
	}
	if sec.kind < 0 {
		return sec, false, nil
	}
	if gd.Doc == nil || !gd.Lparen.IsValid() {
		return sec, false, fmt.Errorf("%s: vocabulary constants belong in a const ( … ) block with a titled comment", sec.entries[0].name)
	}
	title, text, _ := strings.Cut(strings.TrimSpace(gd.Doc.Text()), "\n\n")
	sec.title, sec.text = oneLine(title), oneLine(text)
	return sec, true, nil
}

func kindOf(name string) int {
	for i, k := range kinds {
		if strings.HasPrefix(name, k.prefix) && len(name) > len(k.prefix) {
			return i
		}
	}
	return -1
}

// parseEntry reads one constant: a string literal, and a comment that
// starts with its name and says what to do.
func parseEntry(name string, vs *ast.ValueSpec, i int) (entry, error) {
	e := entry{name: name}
	lit, ok := valueAt(vs, i).(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return e, fmt.Errorf("%s: the value must be a string literal", name)
	}
	e.value, _ = strconv.Unquote(lit.Value)
	if vs.Doc == nil {
		return e, fmt.Errorf("%s: no comment: say what it means and %q", name, whatToDo)
	}
	doc := oneLine(vs.Doc.Text())
	rest, ok := strings.CutPrefix(doc, name)
	if !ok {
		return e, fmt.Errorf("%s: the comment must start with the constant's name", name)
	}
	meaning, action, ok := strings.Cut(rest, whatToDo)
	if !ok {
		return e, fmt.Errorf("%s: the comment must say %q", name, whatToDo)
	}
	e.meaning, e.action = sentence(meaning), sentence(action)
	e.todo = strings.TrimSuffix(strings.TrimLeft(strings.TrimSpace(action), ",; "), ".")
	if e.todo == "" {
		return e, fmt.Errorf("%s: %q says nothing", name, whatToDo)
	}
	return e, nil
}

func valueAt(vs *ast.ValueSpec, i int) ast.Expr {
	if i < len(vs.Values) {
		return vs.Values[i]
	}
	return nil
}

// sentence turns "means the class is missing." into "The class is
// missing.": the verb that follows the constant's name goes. A first
// word that names a field (spec.class, postgresqlConfig) keeps its case.
func sentence(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), ",; ")
	for _, verb := range []string{"means ", "is ", "marks ", "says "} {
		if t, ok := strings.CutPrefix(s, verb); ok {
			s = t
			break
		}
	}
	first, _, _ := strings.Cut(s, " ")
	if first = strings.Trim(first, ",;:."); first == "" || strings.ToLower(first) != first || strings.Contains(first, ".") {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
