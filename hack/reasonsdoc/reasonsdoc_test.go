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
			src = strings.Replace(src, "What to do: create the class, or fix", "What to do: create the class or fix", 1)
			edits += strings.Count(src, "create the class or fix")
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
	want := strings.Replace(string(committed), "| Create the class, or fix spec.class. |", "| Create the class or fix spec.class. |", 1)
	if got := render(secs); got == string(committed) || got != want {
		t.Errorf("the edited comment should change exactly its row of the reference; got:\n%s", got)
	}
}
