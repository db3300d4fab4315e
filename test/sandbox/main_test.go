package main

import (
	"testing"

	"github.com/setpoint-dev/setpoint/test/envtest"
)

// Without built binaries the package fails with one line saying so, unless
// skipping was asked for (SETPOINT_SKIP_INTEGRATION=1 or -short).
func TestMain(m *testing.M) { envtest.RunTests(m) }
