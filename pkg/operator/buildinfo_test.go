package operator

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/setpoint-dev/setpoint/pkg/version"
)

func TestBuildInfo(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newBuildInfo(version.Info{Version: "v0.2.0", Commit: "def456", GoVersion: "go1.26.8"}))
	want := `# HELP setpoint_build_info A metric with a constant '1' value labeled by the version, commit and Go version setpoint was built from.
# TYPE setpoint_build_info gauge
setpoint_build_info{commit="def456",goversion="go1.26.8",version="v0.2.0"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "setpoint_build_info"); err != nil {
		t.Error(err)
	}
}
