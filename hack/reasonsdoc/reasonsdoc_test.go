package main

import (
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodBlock = `package v1alpha1

// Things of PostgresCluster
//
// What the things are.
const (
	// ReasonThingReady means the thing is done. What to do: nothing.
	ReasonThingReady = "ThingReady"
	// ReasonThingMissing means spec.thing names no thing | none. What
	// to do: create it.
	ReasonThingMissing = "ThingMissing"
)

const notVocabulary = "x"
`

func TestRenderTakesTheTableFromTheComments(t *testing.T) {
	secs, err := parseFile(token.NewFileSet(), "things.go", []byte(goodBlock))
	if err != nil {
		t.Fatal(err)
	}
	got := render(secs)
	for _, want := range []string{
		"\n## Condition reasons\n\n### Things of PostgresCluster\n\nWhat the things are.\n\n| Reason | Meaning | What to do |\n",
		"| `ThingReady` | The thing is done. | Nothing. |\n",
		// A field name keeps its case; a | stays inside its cell.
		"| `ThingMissing` | spec.thing names no thing \\| none. | Create it. |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("render lacks %q; got:\n%s", want, got)
		}
	}
}

func TestParseRefusesAnUndocumentedConstant(t *testing.T) {
	for what, src := range map[string]string{
		"no comment":    "package v1alpha1\n\n// T\nconst (\n\tReasonX = \"X\"\n)\n",
		"no what to do": "package v1alpha1\n\n// T\nconst (\n\t// ReasonX means x.\n\tReasonX = \"X\"\n)\n",
		"another name":  "package v1alpha1\n\n// T\nconst (\n\t// ReasonY means x. What to do: y.\n\tReasonX = \"X\"\n)\n",
		"no block":      "package v1alpha1\n\n// ReasonX means x. What to do: y.\nconst ReasonX = \"X\"\n",
		"no literal":    "package v1alpha1\n\n// T\nconst (\n\t// ReasonX means x. What to do: y.\n\tReasonX = y\n)\n",
		"two kinds":     "package v1alpha1\n\n// T\nconst (\n\t// ReasonX means x. What to do: y.\n\tReasonX = \"X\"\n\t// EventX says x. What to do: y.\n\tEventX = \"X\"\n)\n",
	} {
		if _, err := parseFile(token.NewFileSet(), "bad.go", []byte(src)); err == nil {
			t.Errorf("%s: parsed without an error", what)
		}
	}
}

// TestReferenceIsCurrent is hack/verify-docs.sh's check as a test: the
// committed page is what the constants give.
func TestReferenceIsCurrent(t *testing.T) {
	secs, err := parseDir("../../pkg/apis/postgres/v1alpha1")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../../docs/reference/reasons.md")
	if err != nil {
		t.Fatal(err)
	}
	if render(secs) != string(committed) {
		t.Error("docs/reference/reasons.md is stale: run 'make docs'")
	}
}

// TestAChangedCommentMakesTheReferenceStale edits one constant's
// comment in a copy of the API package: the page rendered from it is
// no longer the committed one, which is what hack/verify-docs.sh sees.
func TestAChangedCommentMakesTheReferenceStale(t *testing.T) {
	const api = "../../pkg/apis/postgres/v1alpha1"
	dir := t.TempDir()
	names, err := filepath.Glob(filepath.Join(api, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	edits := 0
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		if filepath.Base(name) == "reasons_cluster.go" {
			src = strings.Replace(src, "What to do: create the PostgresClusterClass", "What to do: create the class", 1)
			edits += strings.Count(src, "What to do: create the class")
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(name)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if edits != 1 {
		t.Fatal("reasons_cluster.go no longer holds the comment this test edits")
	}
	committed, err := os.ReadFile("../../docs/reference/reasons.md")
	if err != nil {
		t.Fatal(err)
	}
	secs, err := parseDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(committed), "| Create the PostgresClusterClass that spec.class names", "| Create the class that spec.class names", 1)
	if got := render(secs); got == string(committed) || got != want {
		t.Errorf("the edited comment should change exactly its row of the reference; got:\n%s", got)
	}
}

func TestAdviceTableTakesWhatToDoFromTheComments(t *testing.T) {
	const conds = "package v1alpha1\n\n// Condition types\nconst (\n\t// ConditionThingReady is the thing. What to do: see its reason.\n\tConditionThingReady = \"ThingReady\"\n)\n"
	fset := token.NewFileSet()
	secs, err := parseFile(fset, "conditions.go", []byte(conds))
	if err != nil {
		t.Fatal(err)
	}
	more, err := parseFile(fset, "things.go", []byte(strings.Replace(goodBlock, "// Things of PostgresCluster", "// ThingReady of PostgresCluster", 1)))
	if err != nil {
		t.Fatal(err)
	}
	src, err := renderAdvice(append(secs, more...), "inspect")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"package inspect\n",
		// The comment's own words, without the final period; the
		// condition of the block's title, by its constant.
		`{"ReasonThingReady", pgv1.ReasonThingReady, pgv1.ConditionThingReady, "nothing"},`,
		`{"ReasonThingMissing", pgv1.ReasonThingMissing, pgv1.ConditionThingReady, "create it"},`,
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("advice table lacks %q; got:\n%s", want, src)
		}
	}
	if strings.Contains(string(src), "ConditionThingReady, pgv1.ConditionThingReady") {
		t.Errorf("condition types are not reasons; got:\n%s", src)
	}
}

// TestAdviceTableIsCurrent is hack/verify-docs.sh's check of the
// plugin's table: the committed pkg/kubectl/inspect/zz_generated.advice.go
// is what the constants give, so each of its keys is a declared reason
// (none stale) and each declared reason is a key (none missing).
func TestAdviceTableIsCurrent(t *testing.T) {
	secs, err := parseDir("../../pkg/apis/postgres/v1alpha1")
	if err != nil {
		t.Fatal(err)
	}
	want, err := renderAdvice(secs, "inspect")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../../pkg/kubectl/inspect/zz_generated.advice.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(committed) {
		t.Error("pkg/kubectl/inspect/zz_generated.advice.go is stale: run 'make docs'")
	}
}
