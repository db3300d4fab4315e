package realcnpg

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/node"
)

// SetpointNamespace is where dist/install.yaml runs the operator.
const SetpointNamespace = "setpoint-system"

// ClientCAGrace is the operator's --client-ca-grace on the real node: a
// client CA move's last step (the replaced CA trusted for this long once
// every certificate is re-issued) fits in a test.
const ClientCAGrace = 20 * time.Second

// InstallSetpoint applies a release's install.yaml as a user would, from
// releaseDir (what `make release` writes), with extra flags appended to
// the operator's, and waits until both replicas of the operator are
// Available. The release's image must have been imported into the node
// (FindSetup adds it to the node's images).
func InstallSetpoint(ctx context.Context, cfg *rest.Config, releaseDir string, flags ...string) error {
	objs, err := envtest.DecodeFile(filepath.Join(releaseDir, "install.yaml"))
	if err != nil {
		return fmt.Errorf("install setpoint: %w", err)
	}
	if err := appendOperatorFlags(objs, flags); err != nil {
		return err
	}
	if _, err := envtest.ApplyObjects(ctx, cfg, "setpoint-test", objs); err != nil {
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

// appendOperatorFlags adds flags to the args of the setpoint Deployment's
// first container, as a user's kustomize patch would.
func appendOperatorFlags(objs []*unstructured.Unstructured, flags []string) error {
	if len(flags) == 0 {
		return nil
	}
	for _, o := range objs {
		if o.GetKind() != "Deployment" || o.GetName() != "setpoint" {
			continue
		}
		containers, _, err := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		if err != nil || len(containers) == 0 {
			return fmt.Errorf("install.yaml's setpoint Deployment has no containers: %v", err)
		}
		c := containers[0].(map[string]any)
		args, _ := c["args"].([]any)
		for _, f := range flags {
			args = append(args, f)
		}
		c["args"] = args
		return unstructured.SetNestedSlice(o.Object, containers, "spec", "template", "spec", "containers")
	}
	return fmt.Errorf("install.yaml has no setpoint Deployment")
}
