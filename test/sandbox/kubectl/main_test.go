// Package kubectl_test runs `kubectl setpoint` against the sandbox: the
// real control plane, the CNPG stand-in with real Postgres, and the
// operator, so that every command is checked on objects the running
// operator produced.
package kubectl_test

import (
	"testing"

	"github.com/setpoint-dev/setpoint/test/envtest"
)

// Without built binaries the package fails with one line saying so, unless
// skipping was asked for (SETPOINT_SKIP_INTEGRATION=1 or -short).
func TestMain(m *testing.M) { envtest.RunTests(m) }
