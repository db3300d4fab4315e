package envtest

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// RunMain is the body of a test package's TestMain: it starts one
// Environment for the whole package, hands it to setup (which stores it for
// the tests), runs the tests and stops the environment, whatever happened.
// Without built binaries the package fails with one line saying so, unless
// -short or SETPOINT_SKIP_INTEGRATION=1 asks to skip it (one line, status
// 0); SETPOINT_REQUIRE_CONTROLPLANE=1 (set by `make test`) never skips.
func RunMain(m *testing.M, opts Options, setup func(*Environment)) {
	os.Exit(runMain(m, opts, setup))
}

func runMain(m *testing.M, opts Options, setup func(*Environment)) int {
	if d := Decide(); !d.Run {
		d.Report()
		if d.Exit == 0 {
			// go test hides a passing package's output unless -v; this,
			// the testing package's own words, makes its summary line
			// read "ok … [no tests to run]", so the skip shows anyway.
			fmt.Fprintln(os.Stderr, "testing: warning: no tests to run")
		}
		return d.Exit
	}
	env, err := Start(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "envtest: start control plane: %v\n", err)
		return 1
	}
	defer env.Stop()
	setup(env)
	return m.Run()
}

// RunTests is the body of TestMain for a package whose tests start their
// own control plane, or of which only some need one: with the binaries
// missing it fails the package with one line, like RunMain, and when
// skipping was asked for it prints that line and runs the tests, each
// test that needs the control plane skipping itself.
func RunTests(m *testing.M) {
	d := Decide()
	d.Report()
	if !d.Run && d.Exit != 0 {
		os.Exit(d.Exit)
	}
	os.Exit(m.Run())
}
