package apiref

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const typesDir = "pkg/apis/postgres/v1alpha1"

// The committed page is what the generator renders from the types as they
// are, and a changed type comment renders differently: so the check that
// `make verify` runs (render, then diff) fails on a comment edited without
// `make docs`. The types are rendered from a copy (with the root module's
// go.mod, for the loader) so the work tree is never touched.
func TestAPIReferenceFollowsTypeComments(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(root, "docs", "reference", "api.md"))
	if err != nil {
		t.Fatal(err)
	}

	asIs := render(t, root, nil)
	if !bytes.Equal(asIs, committed) {
		t.Fatal("docs/reference/api.md differs from what the types render: run `make docs`")
	}

	const was = "// PostgresClusterSpec is the desired cluster: a class plus overrides."
	const now = "// PostgresClusterSpec is the desired cluster, as edited by TestAPIReferenceFollowsTypeComments."
	edited := render(t, root, func(dir string) {
		path := filepath.Join(dir, "cluster_types.go")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(src, []byte(was)) {
			t.Fatalf("cluster_types.go no longer holds the comment %q this test edits", was)
		}
		if err := os.WriteFile(path, bytes.Replace(src, []byte(was), []byte(now), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if bytes.Equal(edited, committed) {
		t.Fatal("an edited type comment renders the committed page: make verify would not notice a stale reference")
	}
	if !strings.Contains(string(edited), "as edited by TestAPIReferenceFollowsTypeComments") {
		t.Error("the edited comment's text is not in the rendered page")
	}
}

// render copies the API types into a module of their own (the root
// module's go.mod and go.sum), lets edit change the copy, and returns the
// page hack/update-apiref.sh renders from it.
func render(t *testing.T, root string, edit func(dir string)) []byte {
	t.Helper()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, typesDir)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, typesDir))); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if edit != nil {
		edit(dir)
	}
	out := filepath.Join(tmp, "api.md")
	cmd := exec.Command(filepath.Join(root, "hack", "update-apiref.sh"), dir, out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/update-apiref.sh: %v\n%s", err, b)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return page
}
