package realcnpg

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/test/node"
)

// StartOptions say how to bring the node up.
type StartOptions struct {
	// KeepDir keeps the node's state directory after Stop.
	KeepDir bool
	// CallerStops: the caller handles SIGINT and SIGTERM and stops the
	// node itself (node.Options.CallerStops).
	CallerStops bool
	// Progress receives one line per step done.
	Progress io.Writer
}

// Start brings the real node up with everything installed as a user
// installs it: CloudNativePG from its release manifest with a
// ClusterImageCatalog of the node's PostgreSQL majors, the barman-cloud
// plugin, the S3 store it archives to, and setpoint's release
// (install.yaml) running in-cluster. On error nothing is left running.
func Start(ctx context.Context, s Setup, o StartOptions) (*node.Node, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	start := time.Now()
	say := func(what string) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "realcnpg: %s at %s\n", what, time.Since(start).Round(100*time.Millisecond))
		}
	}
	n, err := node.Start(ctx, node.Options{BinDir: s.BinDir, Images: s.Images, StartTimeout: 5 * time.Minute,
		KeepDir: o.KeepDir, CallerStops: o.CallerStops})
	if err != nil {
		return nil, fmt.Errorf("start the node: %w", err)
	}
	say(fmt.Sprintf("node Ready with DNS (state %s)", n.Dir()))
	if err := install(ctx, n, s, say); err != nil {
		if serr := n.Stop(); serr != nil {
			err = fmt.Errorf("%w (and stopping the node: %v)", err, serr)
		}
		return nil, err
	}
	return n, nil
}

func install(ctx context.Context, n *node.Node, s Setup, say func(string)) error {
	if err := InstallCNPG(ctx, n.Config, s.Images); err != nil {
		return err
	}
	if err := InstallImageCatalog(ctx, n.Config, s.Images); err != nil {
		return err
	}
	say("CNPG Available, image catalog " + ImageCatalog + " installed")
	// The plugin and the store start while setpoint does; the plugin's
	// ObjectStore CRD is then served before setpoint first looks.
	if err := ApplyBarmanCloud(ctx, n.Config, s.Images); err != nil {
		return err
	}
	if err := ApplyS3Store(ctx, n.Config, s.Images); err != nil {
		return err
	}
	// SETPOINT_OPERATOR_FLAGS adds flags for a run that chases a bug, e.g.
	// "-v=2" to log every pass's statements.
	flags := append([]string{"--client-ca-grace=" + ClientCAGrace.String()}, strings.Fields(os.Getenv("SETPOINT_OPERATOR_FLAGS"))...)
	if err := InstallSetpoint(ctx, n.Config, s.ReleaseDir, flags...); err != nil {
		return err
	}
	say("setpoint Available")
	if err := WaitBackupServices(ctx, kubernetes.NewForConfigOrDie(n.Config)); err != nil {
		return err
	}
	say("barman-cloud plugin and S3 store Available")
	return nil
}
