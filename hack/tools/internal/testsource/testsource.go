// Package testsource gives tests of the tools a copy of the operator's
// committed source.
package testsource

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"
)

// Committed exports the committed operator source (git archive HEAD) into
// a temporary directory and returns it, so that edits in the work tree
// while a test runs cannot make two builds differ. from is a directory
// inside the repository.
func Committed(t *testing.T, from string) string {
	t.Helper()
	root, err := filepath.Abs(from)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	archive := exec.Command("git", "archive", "--format=tar", "HEAD")
	archive.Dir = root
	extract := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	extract.Stdin = pipe
	if err := extract.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	archive.Stderr = &stderr
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive HEAD: %v\n%s", err, stderr.String())
	}
	if err := extract.Wait(); err != nil {
		t.Fatalf("extract the source: %v", err)
	}
	return dir
}
