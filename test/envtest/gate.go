package envtest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// SkipEnv, when "1", is the explicit request to skip the integration tests
// when the control plane is not built. Without it (or -short) a missing
// control plane fails the package: a plain `go test ./...` must not pass
// while running none of the tests that matter.
const SkipEnv = "SETPOINT_SKIP_INTEGRATION"

// Decision is what a test package does about its control plane.
type Decision struct {
	// Run: the binaries are there; start the control plane.
	Run bool
	// Exit is the package's exit status when it does not run: 0 for a
	// skip that was asked for, 1 otherwise.
	Exit int
	// Line is the one line printed to stderr when it does not run.
	Line string
}

// Decide decides for the calling test package, from the built binaries,
// -short, SETPOINT_REQUIRE_CONTROLPLANE and SETPOINT_SKIP_INTEGRATION. It
// parses the test flags if TestMain has not yet: -short is a flag.
func Decide() Decision {
	_, err := findBinDir()
	return DecideOn(err)
}

// Report prints d's line, if any, to stderr.
func (d Decision) Report() {
	if d.Line != "" {
		fmt.Fprintln(os.Stderr, d.Line)
	}
}

// decide is Decide without the environment. SETPOINT_REQUIRE_CONTROLPLANE
// wins over any request to skip, so that `make test` can never pass
// without running these tests, whatever a shell exported.
func decide(pkg string, binErr error, short, require, skip bool) Decision {
	switch {
	case binErr == nil:
		return Decision{Run: true}
	case require:
		return Decision{Exit: 1, Line: fmt.Sprintf("envtest: FAIL %s: %s=1 and %v", pkg, RequireEnv, binErr)}
	case short || skip:
		why := "-short"
		if !short {
			why = SkipEnv + "=1"
		}
		return Decision{Line: fmt.Sprintf("envtest: SKIPPED %s: integration tests not run, as asked (%s): %v", pkg, why, binErr)}
	default:
		return Decision{Exit: 1, Line: fmt.Sprintf("envtest: FAIL %s: integration tests not run: %v; "+
			"or skip them on purpose with %s=1 or -short", pkg, binErr, SkipEnv)}
	}
}

// packageName is the test package's directory relative to the repository
// (go test runs a test binary in its package's directory), for the line
// that says which package did not run.
func packageName() string {
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Base(os.Args[0])
	}
	root, err := repoRoot()
	if err != nil {
		return wd
	}
	if rel, err := filepath.Rel(root, wd); err == nil {
		return filepath.ToSlash(rel)
	}
	return wd
}

// DecideOn is Decide for a package whose prerequisites are not (only)
// the control plane: missing is why it cannot run, nil when it can. The
// same environment and flags decide what a missing prerequisite means.
func DecideOn(missing error) Decision {
	if !flag.Parsed() {
		flag.Parse()
	}
	return decide(packageName(), missing, testing.Short(), os.Getenv(RequireEnv) == "1", os.Getenv(SkipEnv) == "1")
}
