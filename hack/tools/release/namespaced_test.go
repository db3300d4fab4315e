package release

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/hack/tools/rbac"
)

// overlays/namespaced builds: the base without its ClusterRole, the class
// reader instead, a Role for the example namespace, and the Deployment
// watching only that namespace.
func TestNamespacedOverlay(t *testing.T) {
	kinds, y := buildOverlay(t, "../../../overlays/namespaced")
	for _, want := range []string{"ClusterRole//setpoint-namespaced", "ClusterRoleBinding//setpoint-namespaced",
		"Role/app/setpoint", "RoleBinding/app/setpoint", "Role/setpoint-system/setpoint-leader-election",
		"Deployment/setpoint-system/setpoint", "ClusterRole//setpoint-metrics-reader"} {
		if !kinds[want] {
			t.Errorf("the overlay lacks %s", want)
		}
	}
	for _, gone := range []string{"ClusterRole//setpoint", "ClusterRoleBinding//setpoint"} {
		if kinds[gone] {
			t.Errorf("the overlay still has the cluster-wide %s", gone)
		}
	}
	if !strings.Contains(string(y), "- --watch-namespaces=app\n") {
		t.Error("the overlay's Deployment does not pass --watch-namespaces=app")
	}
}

// The namespaced Role grants what the ClusterRole grants, less what only
// exists cluster-wide (classes, which the class reader only reads, the
// metrics endpoint's reviews, and the ClusterImageCatalogs a major
// upgrade's preflight reads): the two cannot drift apart.
func TestNamespacedRoleIsTheClusterRole(t *testing.T) {
	clusterRules := rulesOf(t, "../../../manifests/rbac/cluster_role.yaml", "ClusterRole")
	roleRules := rulesOf(t, "../../../overlays/namespaced/role.yaml", "Role")
	// The cluster-scoped resources are the rbac package's Cluster rules:
	// one source, so a new one (namespaces, for tenant admission) needs
	// no edit here.
	var clusterScoped []string
	for _, r := range rbac.Operator {
		if r.Scope == rbac.Cluster {
			clusterScoped = append(clusterScoped, r.Resources...)
		}
	}
	var want []string
	for _, r := range clusterRules {
		if !slices.ContainsFunc(clusterScoped, func(res string) bool { return strings.Contains(r, "resources:["+res+"]") }) {
			want = append(want, r)
		}
	}
	if strings.Join(roleRules, "\n") != strings.Join(want, "\n") {
		t.Errorf("the namespaced Role's rules\n%s\nare not the ClusterRole's less the cluster-scoped ones\n%s",
			strings.Join(roleRules, "\n"), strings.Join(want, "\n"))
	}
}

func rulesOf(t *testing.T, path, kind string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var o struct {
			Kind  string           `json:"kind"`
			Rules []map[string]any `json:"rules"`
		}
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		if o.Kind == kind {
			var out []string
			for _, r := range o.Rules {
				out = append(out, fmt.Sprint(r))
			}
			return out
		}
	}
	t.Fatalf("%s has no %s", path, kind)
	return nil
}

// overlays/namespace-selector builds: overlays/namespaced, plus list and
// watch on Namespaces bound cluster-wide (nothing more), the unbound
// ClusterRole setpoint-tenant with the namespaced Role's rules, and the
// Deployment passing both flags.
func TestNamespaceSelectorOverlay(t *testing.T) {
	kinds, y := buildOverlay(t, "../../../overlays/namespace-selector")
	for _, want := range []string{"ClusterRole//setpoint-namespaced", "Role/app/setpoint",
		"ClusterRole//setpoint-namespace-reader", "ClusterRoleBinding//setpoint-namespace-reader", "ClusterRole//setpoint-tenant"} {
		if !kinds[want] {
			t.Errorf("the overlay lacks %s", want)
		}
	}
	for _, gone := range []string{"ClusterRole//setpoint", "ClusterRoleBinding//setpoint", "ClusterRoleBinding//setpoint-tenant"} {
		if kinds[gone] {
			t.Errorf("the overlay has %s", gone)
		}
	}
	if got := rulesOf(t, "../../../overlays/namespace-selector/namespace_reader.yaml", "ClusterRole"); strings.Join(got, "\n") != "map[apiGroups:[] resources:[namespaces] verbs:[list watch]]" {
		t.Errorf("the namespace reader grants %v, want list and watch on namespaces only", got)
	}
	tenant := rulesOf(t, "../../../overlays/namespace-selector/tenant_role.yaml", "ClusterRole")
	if role := rulesOf(t, "../../../overlays/namespaced/role.yaml", "Role"); strings.Join(tenant, "\n") != strings.Join(role, "\n") {
		t.Errorf("ClusterRole setpoint-tenant's rules\n%s\nare not the namespaced Role's\n%s", strings.Join(tenant, "\n"), strings.Join(role, "\n"))
	}
	for _, arg := range []string{"- --watch-namespaces=app\n", "- --watch-namespace-selector=tenant=true\n"} {
		if !strings.Contains(string(y), arg) {
			t.Errorf("the overlay's Deployment does not pass %s", strings.TrimSpace(arg))
		}
	}
}

// buildOverlay builds a kustomize overlay: its objects as Kind/ns/name,
// and the YAML.
func buildOverlay(t *testing.T, dir string) (map[string]bool, []byte) {
	t.Helper()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, r := range res.Resources() {
		kinds[r.GetKind()+"/"+r.GetNamespace()+"/"+r.GetName()] = true
	}
	y, err := res.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return kinds, y
}
