package envtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// binaryNames are the control-plane commands an Environment runs, and
// CloudNativePG's manager for its admission webhooks.
var binaryNames = []string{"etcd", "kube-apiserver", "kube-controller-manager", cnpgManagerName}

// BinDirEnv names the environment variable that points at the directory
// holding the control-plane binaries; `make test` sets it.
const BinDirEnv = "SETPOINT_BIN_DIR"

// RequireEnv, when "1", turns a missing control plane into a failure instead
// of a skip, so that `make test` can never pass without running these tests.
const RequireEnv = "SETPOINT_REQUIRE_CONTROLPLANE"

// errNoBinaries reports that the control plane has not been built.
var errNoBinaries = errors.New("control-plane binaries not found: run `make controlplane`")

// BinDir returns the directory holding all control-plane binaries, as Start
// will use it: the one named by SETPOINT_BIN_DIR, else bin/ of the
// repository. A test that decides whether to skip asks this, so that it
// skips exactly when Start would fail.
func BinDir() (string, error) { return findBinDir() }

// findBinDir returns the directory holding all control-plane binaries: the
// one named by SETPOINT_BIN_DIR, else bin/ of the repository.
func findBinDir() (string, error) {
	if dir := os.Getenv(BinDirEnv); dir != "" {
		return dir, checkBinaries(dir)
	}
	root, err := repoRoot()
	if err != nil {
		return "", fmt.Errorf("%w: %w", errNoBinaries, err)
	}
	bin := filepath.Join(root, "bin")
	return bin, checkBinaries(bin)
}

// repoRoot walks up from the working directory (a test's package directory)
// to the operator module's root.
func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "test", "controlplane", "go.mod")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no setpoint repository above %s", wd)
		}
	}
}

func checkBinaries(dir string) error {
	for _, name := range binaryNames {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("%w (missing %s in %s)", errNoBinaries, name, dir)
		}
	}
	return nil
}
