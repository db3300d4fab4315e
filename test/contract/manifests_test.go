package contract_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/test/envtest"
)

// Everything `kubectl apply -k manifests/` installs is accepted by the API
// server (server-side apply refuses fields the schema does not declare).
func TestInstallManifestsApply(t *testing.T) {
	root := filepath.Join("..", "..", "manifests")
	data, err := os.ReadFile(filepath.Join(root, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct{ Resources []string }
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	var files []string
	for _, r := range k.Resources {
		files = append(files, filepath.Join(root, r))
	}
	objs, err := envtest.ApplyFiles(t.Context(), env.Config, "contract", files...)
	if err != nil {
		t.Fatalf("apply the install manifests: %v", err)
	}
	kinds := map[string]bool{}
	for _, o := range objs {
		kinds[o.GetKind()] = true
	}
	for _, want := range []string{"Namespace", "CustomResourceDefinition", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Deployment", "PodDisruptionBudget"} {
		if !kinds[want] {
			t.Errorf("kustomization installs no %s (got %s)", want, strings.Join(keys(kinds), ", "))
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
