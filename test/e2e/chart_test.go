package e2e_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// renderChart renders charts/setpoint with values through Helm's Go SDK
// (hack/tools/cmd/chart, in the tools module: Helm never enters the
// operator's build), as `helm template` would.
func renderChart(t *testing.T, namespace string, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	v, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	tools := filepath.Join("..", "..", "hack", "tools")
	cmd := exec.CommandContext(t.Context(), "go", "run", "./cmd/chart", "-chart", "../../charts/setpoint",
		"-namespace", namespace, "-skip-crds", "-values", string(v))
	cmd.Dir = tools
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("render the chart: %v\n%s", err, stderr)
	}
	objs, err := envtest.DecodeYAML(out)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// chartArgs are the operator's arguments in the rendered Deployment, less
// the listen addresses and the metrics mode, which every test operator
// sets to its own free ports and plain HTTP.
func chartArgs(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		ctrs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		var args []string
		for _, a := range ctrs[0].(map[string]any)["args"].([]any) {
			s := a.(string)
			if !strings.HasPrefix(s, "--metrics-") && !strings.HasPrefix(s, "--health-probe-") {
				args = append(args, s)
			}
		}
		return args
	}
	t.Fatal("the chart rendered no Deployment")
	return nil
}

// The Helm chart installs on a real API server and works: rendered with
// watchNamespaces, its objects are applied as `helm install` would apply
// them, and the operator runs with the Deployment's arguments as the
// chart's ServiceAccount (by impersonation, so only the chart's RBAC
// applies; the control plane has no node to run the Pod itself). It takes
// the Lease the chart's Role allows, makes a cluster and a database in
// the watched namespace Ready, and is never refused a request.
func TestHelmChartInstalls(t *testing.T) {
	release, watched := kit.Namespace(t), kit.Namespace(t)
	name := "chart-" + watched
	objs := renderChart(t, release, map[string]any{"watchNamespaces": []string{watched}, "fullnameOverride": name})
	if _, err := envtest.ApplyObjects(t.Context(), env.Config, "helm", objs); err != nil {
		t.Fatalf("install the chart's objects: %v", err)
	}
	args := chartArgs(t, objs)
	if !slices.Contains(args, "--watch-namespaces="+watched) || !slices.Contains(args, "--leader-election-namespace="+release) {
		t.Fatalf("the chart's arguments %v", args)
	}
	kubeconfig := impersonatingKubeconfig(t, "system:serviceaccount:"+release+":"+name)
	op := startOperator(t, name, append([]string{"--kubeconfig", kubeconfig, "--postgres-host-map", hostMap}, args...)...)

	class := "e2e-" + watched
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15)})
	newCluster(t, watched, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.CreateDatabase(t, watched, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitCluster(t, watched, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.WaitDatabase(t, watched, "app", pgv1.PhaseReady, 60*time.Second)
	for _, s := range op.samples(t, "setpoint_api_requests_total") {
		if s.labels["code"] == "Forbidden" {
			t.Errorf("refused %v %s %s requests under the chart's RBAC", s.value, s.labels["verb"], s.labels["resource"])
		}
	}
	if op.metric(t, "setpoint_api_requests_total", "resource", "leases") == 0 {
		t.Error("the operator never asked for its Lease: leader election did not run")
	}
}
