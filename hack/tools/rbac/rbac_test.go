package rbac_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/hack/tools/chart"
	"github.com/setpoint-dev/setpoint/hack/tools/rbac"
)

const root = "../../.."

// Every copy of the rules is what rules.go renders: a rule edited by hand
// in one of them, or a rules.go change without `make generate`, fails
// here (and in hack/verify-codegen.sh).
func TestFilesAreGenerated(t *testing.T) {
	for path, want := range rbac.Files() {
		got, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what hack/tools/rbac/rules.go renders: run make generate", path)
		}
	}
}

// The chart installs the rules the manifests carry, for each values
// combination that picks roles: a cluster-wide install (ClusterRole
// <name>) and a namespace-scoped one (a Role per watched namespace and
// ClusterRole <name>-namespaced), under another name too.
func TestChartRendersTheManifestsRules(t *testing.T) {
	want := map[string][]any{}
	for _, f := range []struct{ path, key string }{
		{"manifests/rbac/cluster_role.yaml", "ClusterRole//setpoint"},
		{"manifests/rbac/leader_election_role.yaml", "Role/setpoint-system/setpoint-leader-election"},
		{"manifests/rbac/metrics_reader_role.yaml", "ClusterRole//setpoint-metrics-reader"},
		{"overlays/namespaced/role.yaml", "Role/app/setpoint"},
		{"overlays/namespaced/class_reader.yaml", "ClusterRole//setpoint-namespaced"},
		{"overlays/namespace-selector/namespace_reader.yaml", "ClusterRole//setpoint-namespace-reader"},
		{"overlays/namespace-selector/tenant_role.yaml", "ClusterRole//setpoint-tenant"},
	} {
		data, err := os.ReadFile(filepath.Join(root, f.path))
		if err != nil {
			t.Fatal(err)
		}
		want[f.path] = rulesOf(t, decode(t, data), f.key)
	}
	c, err := chart.Load(root + "/charts/setpoint")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		values map[string]any
		roles  map[string]string // rendered object → the file whose rules it has
		absent []string
	}{
		{"defaults", nil, map[string]string{
			"ClusterRole//setpoint":                         "manifests/rbac/cluster_role.yaml",
			"Role/setpoint-system/setpoint-leader-election": "manifests/rbac/leader_election_role.yaml",
			"ClusterRole//setpoint-metrics-reader":          "manifests/rbac/metrics_reader_role.yaml",
		}, []string{"ClusterRole//setpoint-namespaced"}},
		{"insecure metrics", map[string]any{"metrics": map[string]any{"secure": false}}, map[string]string{
			"ClusterRole//setpoint":                "manifests/rbac/cluster_role.yaml",
			"ClusterRole//setpoint-metrics-reader": "manifests/rbac/metrics_reader_role.yaml",
		}, nil},
		{"watchNamespaces", map[string]any{"watchNamespaces": []any{"team-a", "team-b"}, "fullnameOverride": "pg"}, map[string]string{
			"Role/team-a/pg":                          "overlays/namespaced/role.yaml",
			"Role/team-b/pg":                          "overlays/namespaced/role.yaml",
			"ClusterRole//pg-namespaced":              "overlays/namespaced/class_reader.yaml",
			"Role/setpoint-system/pg-leader-election": "manifests/rbac/leader_election_role.yaml",
			"ClusterRole//pg-metrics-reader":          "manifests/rbac/metrics_reader_role.yaml",
		}, []string{"ClusterRole//pg"}},
		{"watchNamespaceSelector", map[string]any{"watchNamespaceSelector": map[string]any{"selector": "tenant=true"}, "fullnameOverride": "pg"}, map[string]string{
			"ClusterRole//pg-namespace-reader": "overlays/namespace-selector/namespace_reader.yaml",
			"ClusterRole//pg-tenant":           "overlays/namespace-selector/tenant_role.yaml",
			"ClusterRole//pg-namespaced":       "overlays/namespaced/class_reader.yaml",
		}, []string{"ClusterRole//pg"}},
		{"watchNamespaceSelector with cluster RBAC", map[string]any{"watchNamespaceSelector": map[string]any{"selector": "tenant=true", "rbac": "cluster"}}, map[string]string{
			"ClusterRole//setpoint":                  "manifests/rbac/cluster_role.yaml",
			"ClusterRole//setpoint-namespace-reader": "overlays/namespace-selector/namespace_reader.yaml",
		}, []string{"ClusterRole//setpoint-namespaced", "ClusterRole//setpoint-tenant"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := chart.Render(c, "setpoint", "setpoint-system", tc.values)
			if err != nil {
				t.Fatal(err)
			}
			for key, path := range tc.roles {
				if got := rulesOf(t, objs, key); !reflect.DeepEqual(got, want[path]) {
					t.Errorf("the chart's %s has rules\n%s\nwant %s's\n%s", key, dump(t, got), path, dump(t, want[path]))
				}
			}
			for _, o := range objs {
				if slices.Contains(tc.absent, chart.KeyOf(o)) {
					t.Errorf("the chart renders %s", chart.KeyOf(o))
				}
			}
		})
	}
}

// A rule added to rules.go reaches every copy that grants its scope, and
// only those: a namespaced one the ClusterRole and the Role (manifest,
// overlay and chart), a cluster-scoped one the ClusterRole and the
// namespace-scoped install's ClusterRole, with its ScopedInstallVerbs.
func TestOneEditReachesEveryCopy(t *testing.T) {
	saved := rbac.Operator
	t.Cleanup(func() { rbac.Operator = saved })
	for _, tc := range []struct {
		rule rbac.Rule
		in   map[string]string // role → the verbs it grants on the rule's resource; no other role has any
	}{
		{rbac.Rule{APIGroups: []string{"example.dev"}, Resources: []string{"widgets"}, Verbs: []string{"get", "patch"}},
			map[string]string{"ClusterRole//setpoint": "[get patch]", "Role/app/setpoint": "[get patch]",
				"chart ClusterRole//setpoint": "[get patch]", "chart Role/team-a/setpoint": "[get patch]"}},
		{rbac.Rule{APIGroups: []string{"example.dev"}, Resources: []string{"gadgets"}, Verbs: []string{"list", "delete"}, Scope: rbac.Cluster, ScopedInstallVerbs: []string{"list"}},
			map[string]string{"ClusterRole//setpoint": "[list delete]", "ClusterRole//setpoint-namespaced": "[list]",
				"chart ClusterRole//setpoint": "[list delete]", "chart ClusterRole//setpoint-namespaced": "[list]"}},
	} {
		rbac.Operator = append(slices.Clone(saved), tc.rule)
		files := rbac.Files()
		roles := map[string][]any{}
		for _, p := range []string{"manifests/rbac/cluster_role.yaml", "overlays/namespaced/role.yaml", "overlays/namespaced/class_reader.yaml"} {
			for _, o := range decode(t, files[p]) {
				if k := chart.KeyOf(o); strings.Contains(k, "Role/") && !strings.Contains(k, "Binding") {
					roles[k] = o["rules"].([]any)
				}
			}
		}
		c, err := chart.Load(root + "/charts/setpoint")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range c.Templates {
			if f.Name == "templates/_rbac.tpl" {
				f.Data = files["charts/setpoint/templates/_rbac.tpl"]
			}
		}
		for _, values := range []map[string]any{nil, {"watchNamespaces": []any{"team-a"}}} {
			objs, err := chart.Render(c, "setpoint", "setpoint-system", values)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				if k := chart.KeyOf(o); (o["kind"] == "Role" || o["kind"] == "ClusterRole") && !strings.Contains(k, "leader-election") && !strings.Contains(k, "metrics-reader") {
					roles["chart "+k] = o["rules"].([]any)
				}
			}
		}
		res := tc.rule.Resources[0]
		for k, rules := range roles {
			var verbs string
			for _, r := range rules {
				if fmt.Sprint(r.(map[string]any)["resources"]) == "["+res+"]" {
					verbs = fmt.Sprint(r.(map[string]any)["verbs"])
				}
			}
			if want := tc.in[k]; verbs != want {
				t.Errorf("%s: %s grants %q on it, want %q", res, k, verbs, want)
			}
		}
		if len(roles) != 6 {
			t.Errorf("looked at %d roles, want 6: %v", len(roles), slices.Sorted(maps.Keys(roles)))
		}
	}
}

// The table itself: least privilege (no wildcards), verbs RBAC knows, no
// grant twice, a namespace-scoped install's verbs a subset of the rule's.
func TestRules(t *testing.T) {
	known := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	for name, rules := range map[string][]rbac.Rule{"Operator": rbac.Operator, "LeaderElection": rbac.LeaderElection, "MetricsReader": rbac.MetricsReader, "NamespaceSelector": rbac.NamespaceSelector} {
		seen := map[string]bool{}
		for i, r := range rules {
			if (len(r.Resources) == 0) == (len(r.NonResourceURLs) == 0) || len(r.Resources) > 0 && len(r.APIGroups) == 0 || len(r.Verbs) == 0 {
				t.Errorf("%s[%d] %+v: want resources with their API groups, or non-resource URLs, and verbs", name, i, r)
			}
			for _, v := range r.Verbs {
				if !slices.Contains(known, v) {
					t.Errorf("%s[%d]: verb %q", name, i, v)
				}
				groups := r.APIGroups
				if len(groups) == 0 {
					groups = []string{""} // non-resource URLs
				}
				for _, g := range groups {
					for _, res := range append(slices.Clone(r.Resources), r.NonResourceURLs...) {
						if strings.Contains(g+res, "*") {
							t.Errorf("%s[%d]: wildcard in %q %q", name, i, g, res)
						}
						if k := g + " " + res + " " + v; seen[k] {
							t.Errorf("%s grants %s twice", name, k)
						}
						seen[g+" "+res+" "+v] = true
					}
				}
			}
			for _, v := range r.ScopedInstallVerbs {
				if r.Scope != rbac.Cluster || !slices.Contains(r.Verbs, v) {
					t.Errorf("%s[%d]: ScopedInstallVerbs %v must be a Cluster rule's verbs' subset", name, i, r.ScopedInstallVerbs)
				}
			}
		}
	}
}

func decode(t *testing.T, data []byte) []chart.Object {
	t.Helper()
	objs, err := chart.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func rulesOf(t *testing.T, objs []chart.Object, key string) []any {
	t.Helper()
	for _, o := range objs {
		if chart.KeyOf(o) == key {
			rules, _ := o["rules"].([]any)
			if len(rules) == 0 {
				t.Fatalf("%s has no rules", key)
			}
			return rules
		}
	}
	t.Fatalf("no %s", key)
	return nil
}

func dump(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
