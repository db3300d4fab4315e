package e2e_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// applyManifests applies every YAML file of dir.
func applyManifests(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if _, err := envtest.ApplyFiles(t.Context(), env.Config, "e2e", files...); err != nil {
		t.Fatal(err)
	}
}

// serviceAccountKubeconfig writes a kubeconfig that acts as the operator's
// ServiceAccount (by impersonation), so only the shipped RBAC applies.
func serviceAccountKubeconfig(t *testing.T) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(env.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		a.Impersonate = "system:serviceaccount:setpoint-system:setpoint"
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// The shipped ClusterRole and leader-election Role suffice for the whole
// pipeline, with leader election on.
func TestShippedRBACSuffices(t *testing.T) {
	applyManifests(t, filepath.Join("..", "..", "manifests", "rbac"))
	ns := newNamespace(t)
	op := startOperator(t, "rbac-op", "--kubeconfig", serviceAccountKubeconfig(t), "--namespace", ns,
		"--leader-election-id", "setpoint-rbac-"+ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	waitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	newDatabase(t, ns, "app", pgv1.DatabaseSpec{Name: "orders"})
	waitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	if err := pg.PostgresV1alpha1().PostgresDatabases(ns).Delete(t.Context(), "app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	gone(t, "PostgresDatabase", func(ctx context.Context) error {
		_, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "app", metav1.GetOptions{})
		return err
	})
	if n := op.metric(t, "setpoint_api_requests_total", "code", "Forbidden"); n != 0 {
		t.Errorf("the operator was refused %v requests under the shipped RBAC", n)
	}
}
