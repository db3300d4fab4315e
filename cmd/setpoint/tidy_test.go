package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// CI runs `make test`, not `make verify`: without this test a go.mod that
// lists a direct import as `// indirect` (or a stale go.sum) would land
// unnoticed. The script is the one `make verify` runs, so the list of the
// repository's modules lives in one place.
func TestGoModulesAreTidy(t *testing.T) {
	cmd := exec.Command(filepath.Join("..", "..", "hack", "verify-tidy.sh"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hack/verify-tidy.sh: %v\n%s", err, out)
	}
}
