package envtest

import (
	"os"
	"testing"
)

// gateChildEnv makes the test binary a package that uses RunMain, for
// TestRunMainWithoutBinaries: it names the case, for the failure messages.
const gateChildEnv = "ENVTEST_GATE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(gateChildEnv) != "" {
		RunMain(m, Options{}, func(*Environment) {})
	}
	// Some of this package's tests start a control plane, the rest need none.
	RunTests(m)
}
