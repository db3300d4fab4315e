package realcnpg

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/node"
)

// The one node of the package, with CNPG and setpoint installed; each
// test works in a namespace of its own.
var (
	setup   Setup
	theNode *node.Node
	kube    kubernetes.Interface
	pg      versioned.Interface
)

func TestMain(m *testing.M) {
	s, err := FindSetup()
	if d := envtest.DecideOn(err); !d.Run {
		d.Report()
		os.Exit(d.Exit)
	}
	setup = s
	os.Exit(run(m))
}

// run brings the node up, installs CNPG and setpoint, runs the tests and
// stops the node whatever happened.
func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	n, err := node.Start(ctx, node.Options{BinDir: setup.BinDir, Images: setup.Images, StartTimeout: 5 * time.Minute,
		KeepDir: os.Getenv("SETPOINT_KEEP_NODE") == "1"})
	if err != nil {
		fmt.Fprintf(os.Stderr, "realcnpg: FAIL: start the node: %v\n", err)
		return 1
	}
	theNode = n
	defer func() {
		if err := n.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "realcnpg: stop the node: %v\n", err)
		}
	}()
	fmt.Fprintf(os.Stderr, "realcnpg: node Ready with DNS in %s (state %s)\n", time.Since(start).Round(100*time.Millisecond), n.Dir())
	kube = kubernetes.NewForConfigOrDie(n.Config)
	pg = versioned.NewForConfigOrDie(n.Config)
	if err := InstallCNPG(ctx, n.Config, setup.Images); err != nil {
		fmt.Fprintf(os.Stderr, "realcnpg: FAIL: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "realcnpg: CNPG Available at %s\n", time.Since(start).Round(100*time.Millisecond))
	// The plugin and the store start while setpoint does; the plugin's
	// ObjectStore CRD is then served before setpoint first looks.
	if err := ApplyBarmanCloud(ctx, n.Config, setup.Images); err != nil {
		fmt.Fprintf(os.Stderr, "realcnpg: FAIL: %v\n", err)
		return 1
	}
	if err := ApplyS3Store(ctx, n.Config, setup.Images); err != nil {
		fmt.Fprintf(os.Stderr, "realcnpg: FAIL: %v\n", err)
		return 1
	}
	if err := InstallSetpoint(ctx, n.Config, setup.ReleaseDir); err != nil {
		fmt.Fprintf(os.Stderr, "realcnpg: FAIL: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "realcnpg: setpoint Available at %s\n", time.Since(start).Round(100*time.Millisecond))
	if err := WaitBackupServices(ctx, kube); err != nil {
		fmt.Fprintf(os.Stderr, "realcnpg: FAIL: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "realcnpg: barman-cloud plugin and S3 store Available at %s\n", time.Since(start).Round(100*time.Millisecond))
	return m.Run()
}
