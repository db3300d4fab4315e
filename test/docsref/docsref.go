// Package docsref holds a generated reference page of docs/reference to
// the code it is generated from. A test renders the page and calls Check:
// run plainly, it fails when the committed page differs (a stale page);
// with SETPOINT_DOCS_OUT set (make docs, hack/verify-docs.sh) it writes
// the page into that folder instead.
package docsref

import (
	"os"
	"path/filepath"
	"testing"
)

// OutEnv names the folder Check writes into instead of comparing.
const OutEnv = "SETPOINT_DOCS_OUT"

// Check compares got with the committed page committed (a path from the
// test's package), or writes it as filepath.Base(committed) into the
// folder OutEnv names.
func Check(t *testing.T, committed, got string) {
	t.Helper()
	page := filepath.Base(committed)
	if dir := os.Getenv(OutEnv); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, page), []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("docs/reference/%s is not what the code generates: run make docs", page)
	}
}
