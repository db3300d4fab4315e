package realcnpg

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/node"
)

// SetpointNamespace is where dist/install.yaml runs the operator.
const SetpointNamespace = "setpoint-system"

// InstallSetpoint applies a release's install.yaml as a user would, from
// releaseDir (what `make release` writes), and waits until both replicas
// of the operator are Available. The release's image must have been
// imported into the node (FindSetup adds it to the node's images).
func InstallSetpoint(ctx context.Context, cfg *rest.Config, releaseDir string) error {
	if _, err := envtest.ApplyFiles(ctx, cfg, "setpoint-test", filepath.Join(releaseDir, "install.yaml")); err != nil {
		return fmt.Errorf("install setpoint: %w", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	return node.WaitAvailable(ctx, client, SetpointNamespace, "setpoint")
}
