package realcnpg

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/node"
)

// CNPGNamespace is where CNPG's release manifest installs the operator.
const CNPGNamespace = "cnpg-system"

const cnpgDeployment = "cnpg-controller-manager"

// InstallCNPG applies CNPG's own release manifest with the local images
// and waits until the operator is Available and its webhooks answer. The
// only changes to upstream's manifest: the images (operator, PostgreSQL,
// PgBouncer) are the local ones and never pulled, and the operator's CPU
// limit is raised: 100m throttles it badly on a busy 2-core machine.
func InstallCNPG(ctx context.Context, cfg *rest.Config, images node.Images) error {
	manifest, err := envtest.CNPGReleaseManifest()
	if err != nil {
		return err
	}
	objs, err := envtest.DecodeFile(manifest)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if obj.GetKind() == "Deployment" && obj.GetName() == cnpgDeployment {
			if err := localOperator(obj, images); err != nil {
				return err
			}
		}
	}
	if _, err := envtest.ApplyObjects(ctx, cfg, "setpoint-test", objs); err != nil {
		return fmt.Errorf("install CNPG: %w", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	return node.WaitAvailable(ctx, client, CNPGNamespace, cnpgDeployment)
}

// localOperator points the operator's container at the local images.
func localOperator(d *unstructured.Unstructured, images node.Images) error {
	containers, _, err := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	if err != nil || len(containers) != 1 {
		return fmt.Errorf("CNPG Deployment: want one container, got %d (%v)", len(containers), err)
	}
	c := containers[0].(map[string]any)
	c["image"] = images.Ref("cnpg")
	c["imagePullPolicy"] = "Never"
	env, _ := c["env"].([]any)
	var kept []any
	for _, e := range env {
		if e.(map[string]any)["name"] != "OPERATOR_IMAGE_NAME" {
			kept = append(kept, e)
		}
	}
	for _, e := range [][2]string{
		{"OPERATOR_IMAGE_NAME", images.Ref("cnpg")},
		{"POSTGRES_IMAGE_NAME", images.Ref("postgresql")},
		{"PGBOUNCER_IMAGE_NAME", images.Ref("pgbouncer")},
	} {
		kept = append(kept, map[string]any{"name": e[0], "value": e[1]})
	}
	c["env"] = kept
	c["resources"] = map[string]any{
		"requests": map[string]any{"cpu": "100m", "memory": "100Mi"},
		"limits":   map[string]any{"cpu": "1", "memory": "512Mi"},
	}
	return unstructured.SetNestedSlice(d.Object, []any{c}, "spec", "template", "spec", "containers")
}
