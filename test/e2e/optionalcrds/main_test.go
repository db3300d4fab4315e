// Package optionalcrds_test runs the setpoint binary on a control plane
// that starts without CloudNativePG's, the barman-cloud plugin's and the
// Prometheus Operator's PodMonitor CRDs, and installs them while it runs.
package optionalcrds_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

var (
	env      *envtest.Environment
	pg       versioned.Interface
	setpoint string
	buildErr error
	// kit waits on the API at the stand-in's pace, as test/e2e's does;
	// this package dials no cluster, so it has no Sessions.
	kit testkit.Kit
)

// isOptional matches the CRDs of CloudNativePG (postgresql.cnpg.io), of
// the barman-cloud plugin (barmancloud.cnpg.io) and the PodMonitor.
func isOptional(name string) bool {
	return strings.HasSuffix(name, ".cnpg.io") || name == podMonitorCRD
}

const podMonitorCRD = "podmonitors.monitoring.coreos.com"

func TestMain(m *testing.M) {
	envtest.RunMain(m, envtest.Options{SkipCRDs: isOptional}, func(e *envtest.Environment) {
		env = e
		pg = versioned.NewForConfigOrDie(e.Config)
		kit = testkit.Kit{Kube: kubernetes.NewForConfigOrDie(e.Config), PG: pg, Poll: 100 * time.Millisecond, Scale: 1}
		setpoint = filepath.Join(e.Dir(), "setpoint")
		cmd := exec.Command("go", "build", "-o", setpoint, "github.com/setpoint-dev/setpoint/cmd/setpoint")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("build setpoint: %w", err)
		}
	})
}
