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
// Without built binaries it skips the package, unless
// SETPOINT_REQUIRE_CONTROLPLANE=1 (set by `make test`) makes that a failure.
func RunMain(m *testing.M, opts Options, setup func(*Environment)) {
	os.Exit(runMain(m, opts, setup))
}

func runMain(m *testing.M, opts Options, setup func(*Environment)) int {
	if _, err := findBinDir(); err != nil {
		if os.Getenv(RequireEnv) == "1" {
			fmt.Fprintf(os.Stderr, "envtest: %v\n", err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "envtest: skipping integration tests: %v\n", err)
		return 0
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
