package chart_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/hack/tools/chart"
	"github.com/setpoint-dev/setpoint/hack/tools/release"
)

const (
	root      = "../../.."
	chartDir  = root + "/charts/setpoint"
	namespace = "setpoint-system"
)

// helmLabels are the labels only the chart sets: Helm's own bookkeeping.
var helmLabels = []string{"helm.sh/chart", "app.kubernetes.io/instance", "app.kubernetes.io/managed-by", "app.kubernetes.io/version"}

func load(t *testing.T) *chart.Chart {
	t.Helper()
	c, err := chart.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func render(t *testing.T, values map[string]any) map[string]chart.Object {
	t.Helper()
	objs, err := chart.Render(load(t), "setpoint", namespace, values)
	if err != nil {
		t.Fatal(err)
	}
	return byKey(t, objs)
}

func byKey(t *testing.T, objs []chart.Object) map[string]chart.Object {
	t.Helper()
	out := map[string]chart.Object{}
	for _, o := range objs {
		k := chart.KeyOf(o)
		if _, dup := out[k]; dup {
			t.Errorf("%s rendered twice", k)
		}
		out[k] = o
	}
	return out
}

// With default values the chart installs what install.yaml installs: the
// same objects, field for field, apart from Helm's labels and the
// Namespace (`helm install --create-namespace` makes it).
func TestDefaultsRenderTheInstallManifest(t *testing.T) {
	c := load(t)
	manifest, err := release.Render(root+"/manifests", release.Image{Repository: release.ManifestImage, Tag: c.Metadata.AppVersion})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := chart.Decode(manifest)
	if err != nil {
		t.Fatal(err)
	}
	want := byKey(t, objs)
	delete(want, "Namespace//"+namespace)
	got := render(t, nil)
	for k, o := range got {
		md := o["metadata"].(map[string]any)
		labels, _ := md["labels"].(map[string]any)
		for _, l := range helmLabels {
			if _, ok := labels[l]; !ok {
				t.Errorf("%s lacks Helm's label %s", k, l)
			}
			delete(labels, l)
		}
		if !strings.HasPrefix(k, "CustomResourceDefinition/") {
			continue
		}
		// A CRD carries only Helm's labels, and is kept by helm uninstall.
		if len(labels) == 0 {
			delete(md, "labels")
		}
		ann, _ := md["annotations"].(map[string]any)
		if ann["helm.sh/resource-policy"] != "keep" {
			t.Errorf("%s lacks helm.sh/resource-policy: keep: helm uninstall would delete every object of its kind", k)
		}
		delete(ann, "helm.sh/resource-policy")
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("install.yaml has %s; the chart does not render it", k)
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s differs:\nchart:\n%s\ninstall.yaml:\n%s", k, dump(t, g), dump(t, w))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("the chart renders %s; install.yaml does not have it", k)
		}
	}
}

func dump(t *testing.T, o chart.Object) string {
	t.Helper()
	b, err := yaml.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The chart's files/crds are manifests/crd (make generate copies them),
// and it has no crds/ directory, which Helm would never upgrade.
func TestCRDsAreTheGeneratedOnes(t *testing.T) {
	want, _ := filepath.Glob(root + "/manifests/crd/*.yaml")
	got, _ := filepath.Glob(chartDir + "/files/crds/*.yaml")
	if _, err := os.Stat(chartDir + "/crds"); !os.IsNotExist(err) {
		t.Errorf("charts/setpoint/crds exists (%v): helm upgrade never upgrades it", err)
	}
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("chart CRDs %v, manifests %v", got, want)
	}
	for _, w := range want {
		a, errA := os.ReadFile(w)
		b, errB := os.ReadFile(filepath.Join(chartDir, "files", "crds", filepath.Base(w)))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("charts/setpoint/files/crds/%s is not manifests/crd's (run make generate): %v %v", filepath.Base(w), errA, errB)
		}
	}
}

// Every documented value reaches the object it is for.
func TestValues(t *testing.T) {
	got := render(t, map[string]any{
		"replicaCount":        3,
		"image":               map[string]any{"repository": "registry.example/setpoint", "tag": "v9.9.9", "digest": "sha256:" + strings.Repeat("ab", 32), "pullPolicy": "Always"},
		"resources":           map[string]any{"limits": map[string]any{"memory": "512Mi"}},
		"metrics":             map[string]any{"secure": false, "port": 8080},
		"logFormat":           "json",
		"extraArgs":           []any{"--postgres-sample-interval=30s"},
		"nodeSelector":        map[string]any{"kubernetes.io/os": "linux"},
		"tolerations":         []any{map[string]any{"key": "dedicated", "operator": "Exists"}},
		"affinity":            map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{map[string]any{"key": "pool", "operator": "In", "values": []any{"ops"}}}}}}}},
		"podDisruptionBudget": map[string]any{"enabled": false},
		"podAnnotations":      map[string]any{"example.com/team": "data"},
	})
	d := got["Deployment/"+namespace+"/setpoint"]
	if d == nil {
		t.Fatal("no Deployment")
	}
	spec := d["spec"].(map[string]any)
	if fmt.Sprint(spec["replicas"]) != "3" {
		t.Errorf("replicas = %v", spec["replicas"])
	}
	pod := spec["template"].(map[string]any)["spec"].(map[string]any)
	ctr := pod["containers"].([]any)[0].(map[string]any)
	if want := "registry.example/setpoint:v9.9.9@sha256:" + strings.Repeat("ab", 32); ctr["image"] != want {
		t.Errorf("image = %v, want %s", ctr["image"], want)
	}
	if ctr["imagePullPolicy"] != "Always" {
		t.Errorf("imagePullPolicy = %v", ctr["imagePullPolicy"])
	}
	args := strings.Join(toStrings(ctr["args"]), " ")
	for _, a := range []string{"--metrics-secure=false", "--metrics-bind-address=:8080", "--log-format=json", "--postgres-sample-interval=30s", "--leader-election-namespace=" + namespace} {
		if !strings.Contains(args, a) {
			t.Errorf("args %q lack %s", args, a)
		}
	}
	if lim := ctr["resources"].(map[string]any)["limits"].(map[string]any); lim["memory"] != "512Mi" {
		t.Errorf("limits = %v", lim)
	}
	if port := ctr["ports"].([]any)[0].(map[string]any); fmt.Sprint(port["containerPort"]) != "8080" || port["name"] != "http-metrics" {
		t.Errorf("metrics port = %v", port)
	}
	if ns := pod["nodeSelector"].(map[string]any); ns["kubernetes.io/os"] != "linux" {
		t.Errorf("nodeSelector = %v", ns)
	}
	if tol := pod["tolerations"].([]any); len(tol) != 1 {
		t.Errorf("tolerations = %v", tol)
	}
	aff := pod["affinity"].(map[string]any)
	if _, ok := aff["nodeAffinity"]; !ok || aff["podAntiAffinity"] != nil {
		t.Errorf("affinity = %v, want the given one in place of the default", aff)
	}
	if a := spec["template"].(map[string]any)["metadata"].(map[string]any)["annotations"].(map[string]any); a["example.com/team"] != "data" {
		t.Errorf("pod annotations = %v", a)
	}
	if _, ok := got["PodDisruptionBudget/"+namespace+"/setpoint"]; ok {
		t.Error("podDisruptionBudget.enabled=false still renders the PDB")
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// helm lint finds nothing, with default values and with every value set.
func TestLint(t *testing.T) {
	if err := chart.Lint(chartDir, namespace, nil); err != nil {
		t.Error(err)
	}
	if err := chart.Lint(chartDir, namespace, map[string]any{"logFormat": "json", "metrics": map[string]any{"secure": false}, "podDisruptionBudget": map[string]any{"enabled": false}}); err != nil {
		t.Error(err)
	}
}

// The packaged chart is the release's: its version, and the released image
// by tag and digest by default; one commit packages to the same bytes.
func TestPackage(t *testing.T) {
	r := chart.Release{Version: "v1.2.3", Repository: "ghcr.io/setpoint-dev/setpoint",
		Digest: "sha256:" + strings.Repeat("0f", 32), Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	var archives [][]byte
	for range 2 {
		out := t.TempDir()
		file, err := chart.Package(chartDir, out, r)
		if err != nil {
			t.Fatal(err)
		}
		if file != "setpoint-1.2.3.tgz" {
			t.Errorf("package %s", file)
		}
		if err := chart.Index(out, file, r.Created); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(out, file))
		if err != nil {
			t.Fatal(err)
		}
		archives = append(archives, data)
		checkPackaged(t, filepath.Join(out, file), r)
		checkIndex(t, filepath.Join(out, chart.IndexFile), file)
	}
	if !bytes.Equal(archives[0], archives[1]) {
		t.Error("two packages of the same chart differ")
	}
}

func checkPackaged(t *testing.T, path string, r chart.Release) {
	t.Helper()
	c, err := chart.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Metadata.Version != "1.2.3" || c.Metadata.AppVersion != "v1.2.3" {
		t.Errorf("packaged version %s, appVersion %s", c.Metadata.Version, c.Metadata.AppVersion)
	}
	objs, err := chart.Render(c, "setpoint", namespace, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := byKey(t, objs)["Deployment/"+namespace+"/setpoint"]
	ctr := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if want := r.Repository + ":v1.2.3@" + r.Digest; ctr["image"] != want {
		t.Errorf("packaged chart runs %v, want %s", ctr["image"], want)
	}
	crds := 0
	for _, o := range objs {
		if o["kind"] == "CustomResourceDefinition" {
			crds++
		}
	}
	if crds != 3 {
		t.Errorf("packaged chart renders %d CRDs", crds)
	}
}

func checkIndex(t *testing.T, path, file string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Entries map[string][]struct {
			Version string   `json:"version"`
			URLs    []string `json:"urls"`
			Digest  string   `json:"digest"`
		} `json:"entries"`
	}
	if err := yaml.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	e := idx.Entries["setpoint"]
	if len(e) != 1 || e[0].Version != "1.2.3" || len(e[0].URLs) != 1 || e[0].URLs[0] != file || len(e[0].Digest) != 64 {
		t.Errorf("index entries = %+v", idx.Entries)
	}
}

// watchNamespaces renders the namespace-scoped install of
// overlays/namespaced: a Role with the overlay's rules in each namespace,
// the class reader instead of the ClusterRole, and the flag.
func TestWatchNamespaces(t *testing.T) {
	got := render(t, map[string]any{"watchNamespaces": []any{"team-a", "team-b"}})
	wantRules := namespacedRoleRules(t)
	for _, ns := range []string{"team-a", "team-b"} {
		role := got["Role/"+ns+"/setpoint"]
		if role == nil || got["RoleBinding/"+ns+"/setpoint"] == nil {
			t.Fatalf("no Role and RoleBinding in %s", ns)
		}
		if !reflect.DeepEqual(role["rules"], wantRules) {
			t.Errorf("Role in %s has rules\n%v\nwant overlays/namespaced's\n%v", ns, role["rules"], wantRules)
		}
	}
	for _, gone := range []string{"ClusterRole//setpoint", "ClusterRoleBinding//setpoint"} {
		if got[gone] != nil {
			t.Errorf("a namespace-scoped install renders %s", gone)
		}
	}
	reader := got["ClusterRole//setpoint-namespaced"]
	if reader == nil || got["ClusterRoleBinding//setpoint-namespaced"] == nil {
		t.Fatal("no class-reading ClusterRole")
	}
	if s := fmt.Sprint(reader["rules"]); strings.Contains(s, "patch") || !strings.Contains(s, "postgresclusterclasses") {
		t.Errorf("class reader rules %s: want classes read-only", s)
	}
	ctr := got["Deployment/"+namespace+"/setpoint"]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if args := toStrings(ctr["args"]); !slices.Contains(args, "--watch-namespaces=team-a,team-b") {
		t.Errorf("args %v lack --watch-namespaces=team-a,team-b", args)
	}
	if err := chart.Lint(chartDir, namespace, map[string]any{"watchNamespaces": []any{"team-a"}}); err != nil {
		t.Error(err)
	}
}

// namespacedRoleRules are the rules of overlays/namespaced's Role.
func namespacedRoleRules(t *testing.T) any {
	t.Helper()
	overlay, err := os.ReadFile(root + "/overlays/namespaced/role.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := chart.Decode(overlay)
	if err != nil {
		t.Fatal(err)
	}
	return byKey(t, objs)["Role/app/setpoint"]["rules"]
}
