package realcnpg

import (
	"context"
	"encoding/base64"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/node"
)

// The barman-cloud plugin's Deployment, as its release manifest names it
// (in CNPGNamespace, where CNPG looks for plugin Services).
const barmanCloudDeployment = "barman-cloud"

// ApplyBarmanCloud applies the barman-cloud plugin's own release manifest
// (manifest.yaml in the module zip) with the local images, without waiting
// for it (WaitBarmanCloud does). The changes to upstream's manifest:
//   - the plugin's image and its sidecar's (the SIDECAR_IMAGE Secret) are
//     the local ones, never pulled, and the plugin gets resource limits;
//   - the cert-manager objects (an Issuer and two Certificates) are left
//     out: the node has no cert-manager, so barmanCloudTLS makes the two
//     Secrets they would have produced, as cert-manager's selfSigned
//     Issuer would (each certificate its own CA).
func ApplyBarmanCloud(ctx context.Context, cfg *rest.Config, images node.Images) error {
	manifest, err := envtest.BarmanCloudReleaseManifest()
	if err != nil {
		return err
	}
	objs, err := envtest.DecodeFile(manifest)
	if err != nil {
		return err
	}
	secrets, err := barmanCloudTLS()
	if err != nil {
		return err
	}
	kept := secrets
	for _, obj := range objs {
		if obj.GroupVersionKind().Group == "cert-manager.io" {
			continue
		}
		if err := localBarmanCloud(obj, images); err != nil {
			return err
		}
		kept = append(kept, obj)
	}
	if _, err := envtest.ApplyObjects(ctx, cfg, "setpoint-test", kept); err != nil {
		return fmt.Errorf("install the barman-cloud plugin: %w", err)
	}
	return nil
}

// localBarmanCloud points the plugin's Deployment and its sidecar image
// Secret at the local images; other objects pass unchanged.
func localBarmanCloud(obj *unstructured.Unstructured, images node.Images) error {
	switch {
	case obj.GetKind() == "Secret":
		if _, ok, _ := unstructured.NestedString(obj.Object, "data", "SIDECAR_IMAGE"); ok {
			sidecar := base64.StdEncoding.EncodeToString([]byte(images.Ref("barman-cloud-sidecar")))
			return unstructured.SetNestedField(obj.Object, sidecar, "data", "SIDECAR_IMAGE")
		}
	case obj.GetKind() == "Deployment" && obj.GetName() == barmanCloudDeployment:
		containers, _, err := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
		if err != nil || len(containers) != 1 {
			return fmt.Errorf("barman-cloud Deployment: want one container, got %d (%v)", len(containers), err)
		}
		c := containers[0].(map[string]any)
		c["image"] = images.Ref("barman-cloud")
		c["imagePullPolicy"] = "Never"
		c["resources"] = map[string]any{
			"requests": map[string]any{"cpu": "50m", "memory": "64Mi"},
			"limits":   map[string]any{"cpu": "1", "memory": "512Mi"},
		}
		return unstructured.SetNestedSlice(obj.Object, []any{c}, "spec", "template", "spec", "containers")
	}
	return nil
}
