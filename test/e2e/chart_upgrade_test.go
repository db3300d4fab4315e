package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// helmApply runs `helm upgrade --install` of the chart in dir as release
// setpoint in setpoint-system, with Helm's Go SDK (hack/tools/cmd/chart
// -kubeconfig), and returns its error output. The chart's kubeVersion is
// checked against the control plane's version, which its kube-apiserver,
// built from source unstamped, does not report: the k8s.io/kubernetes
// version test/controlplane builds it from.
func helmApply(t *testing.T, kubeconfig, dir string, flags ...string) (string, error) {
	t.Helper()
	tools, err := filepath.Abs(filepath.Join("..", "..", "hack", "tools"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(tools, "..", "..", "test", "controlplane", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`(?m)^\s*k8s\.io/kubernetes (v[0-9.]+)$`).FindSubmatch(mod)
	if version == nil {
		t.Fatal("test/controlplane/go.mod requires no k8s.io/kubernetes")
	}
	cmd := exec.CommandContext(t.Context(), "go", append([]string{"run", "./cmd/chart", "-chart", dir, "-kubeconfig", kubeconfig,
		"-kube-version", string(version[1])}, flags...)...)
	cmd.Dir = tools
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// copyChart copies the chart into a new directory for a test to edit.
func copyChart(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	if err := os.CopyFS(out, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return out
}

// helm upgrade upgrades the CRDs, and the path the installing guide gives
// from a chart that kept them in crds/ works, with Helm's own install and
// upgrade actions and the helm command's defaults, on a control plane of
// its own (CRDs are cluster-wide; the shared one's serve the other
// tests). The earlier chart (this one with its CRDs back in crds/) is
// installed, and its CRDs applied again as its guide said (kubectl apply
// --server-side); helm upgrade to this chart refuses them, as Helm owns
// none; annotated and labelled as the guide says, upgraded once with
// --server-side=false, the release takes them over and keeps them on
// uninstall (helm.sh/resource-policy: keep); a chart whose CRD changed
// then changes it in the cluster with the default flags.
func TestHelmUpgradeUpgradesCRDs(t *testing.T) {
	own, err := envtest.Start(t.Context(), envtest.Options{NoCNPGWebhooks: true,
		SkipCRDs: func(name string) bool { return strings.HasSuffix(name, "."+pgv1.GroupName) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(own.Stop)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "setpoint-system"}}
	if _, err := kubernetes.NewForConfigOrDie(own.Config).CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	chartDir := filepath.Join(root, "charts", "setpoint")

	earlier := copyChart(t, chartDir)
	if err := os.Rename(filepath.Join(earlier, "files", "crds"), filepath.Join(earlier, "crds")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(earlier, "templates", "crds.yaml")); err != nil {
		t.Fatal(err)
	}
	if out, err := helmApply(t, own.KubeconfigPath, earlier); err != nil {
		t.Fatalf("helm install of the chart with crds/: %v\n%s", err, out)
	}
	crdFiles, _ := filepath.Glob(filepath.Join(earlier, "crds", "*.yaml"))
	crds, err := envtest.ApplyFiles(t.Context(), own.Config, "kubectl", crdFiles...)
	if err != nil || len(crds) != 3 {
		t.Fatalf("kubectl apply --server-side of the CRDs: %v (%d)", err, len(crds))
	}
	if out, err := helmApply(t, own.KubeconfigPath, chartDir); err == nil || !strings.Contains(out, "cannot be imported") {
		t.Fatalf("helm upgrade over CRDs Helm does not own: %v\n%s\nwant refused", err, out)
	}

	// The guide's kubectl annotate and kubectl label, then one upgrade
	// with --server-side=false.
	client := dynamic.NewForConfigOrDie(own.Config).Resource(crdResource)
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"annotations": map[string]string{"meta.helm.sh/release-name": "setpoint", "meta.helm.sh/release-namespace": "setpoint-system"},
		"labels":      map[string]string{"app.kubernetes.io/managed-by": "Helm"}}})
	for _, c := range crds {
		if _, err := client.Patch(t.Context(), c.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := helmApply(t, own.KubeconfigPath, chartDir, "-server-side=false"); err != nil {
		t.Fatalf("helm upgrade after the guide's annotations: %v\n%s", err, out)
	}
	for _, c := range crds {
		got, err := client.Get(t.Context(), c.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.GetAnnotations()["helm.sh/resource-policy"] != "keep" || got.GetLabels()["helm.sh/chart"] == "" {
			t.Errorf("%s: annotations %v, labels %v: want the release's, kept on uninstall", c.GetName(), got.GetAnnotations(), got.GetLabels())
		}
	}

	// The next chart's CRD differs: helm upgrade brings it.
	next := copyChart(t, chartDir)
	crdFile := filepath.Join(next, "files", "crds", "postgres.setpoint.dev_postgresclusters.yaml")
	data, err := os.ReadFile(crdFile)
	if err != nil {
		t.Fatal(err)
	}
	const before, after = "PostgresCluster is a Postgres cluster run by", "The next release's PostgresCluster is a Postgres cluster run by"
	if !strings.Contains(string(data), before) {
		t.Fatalf("%s lacks %q", crdFile, before)
	}
	if err := os.WriteFile(crdFile, []byte(strings.Replace(string(data), before, after, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := helmApply(t, own.KubeconfigPath, next); err != nil {
		t.Fatalf("helm upgrade to the next chart: %v\n%s", err, out)
	}
	got, err := client.Get(t.Context(), "postgresclusters."+pgv1.GroupName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got.Object["spec"])
	if !strings.Contains(string(b), "The next release's PostgresCluster is") {
		t.Error("helm upgrade left the CRD as it was: the next chart's schema is not in the cluster")
	}
}
