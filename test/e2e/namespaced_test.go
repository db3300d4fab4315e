package e2e_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	clusterctl "github.com/setpoint-dev/setpoint/pkg/controller/cluster"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// namespacedInstall is one namespace-scoped install: a ServiceAccount
// (by impersonation) with overlays/namespaced's RBAC for its watched
// namespaces, and the shipped leader-election Role for its Lease.
type namespacedInstall struct {
	sa      string // ServiceAccount name in setpoint-system
	watch   []string
	lease   string
	op      *operatorProc
	kubecfg string
}

// install applies the RBAC of overlays/namespaced as a user would, with
// the example namespace and ServiceAccount replaced by the install's.
func (in *namespacedInstall) install(t *testing.T) {
	t.Helper()
	dir := filepath.Join("..", "..", "manifests")
	var objs []*unstructured.Unstructured
	for _, ns := range in.watch {
		objs = append(objs, in.decode(t, filepath.Join("..", "..", "overlays", "namespaced", "role.yaml"), ns)...)
	}
	objs = append(objs, in.decode(t, filepath.Join("..", "..", "overlays", "namespaced", "class_reader.yaml"), "")...)
	objs = append(objs, in.decode(t, filepath.Join(dir, "rbac", "leader_election_role.yaml"), "setpoint-system")...)
	if _, err := envtest.ApplyObjects(t.Context(), env.Config, "e2e", objs); err != nil {
		t.Fatal(err)
	}
	in.kubecfg = impersonatingKubeconfig(t, "system:serviceaccount:setpoint-system:"+in.sa)
}

// decode reads a manifest and makes it this install's: namespaced objects
// in ns, cluster-scoped ones and bindings named after the ServiceAccount,
// subjects the ServiceAccount.
func (in *namespacedInstall) decode(t *testing.T, path, ns string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := envtest.DecodeFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		o.SetName(in.sa + strings.TrimPrefix(o.GetName(), "setpoint"))
		if ns != "" {
			o.SetNamespace(ns)
		}
		if ref, ok, _ := unstructured.NestedMap(o.Object, "roleRef"); ok {
			ref["name"] = in.sa + strings.TrimPrefix(ref["name"].(string), "setpoint")
			_ = unstructured.SetNestedMap(o.Object, ref, "roleRef")
		}
		if _, ok := o.Object["subjects"]; ok {
			o.Object["subjects"] = []any{map[string]any{"kind": "ServiceAccount", "name": in.sa, "namespace": "setpoint-system"}}
		}
	}
	return objs
}

func (in *namespacedInstall) start(t *testing.T) {
	t.Helper()
	in.op = startOperator(t, in.sa, "--kubeconfig", in.kubecfg, "--watch-namespaces", strings.Join(in.watch, ","),
		"--leader-election-id", in.lease, "--postgres-host-map", hostMap)
	waitLeaseHolder(t, in.lease, in.sa)
}

// Two namespace-scoped installs watch disjoint namespaces, each with only
// the RBAC of overlays/namespaced (Roles in its namespaces, a ClusterRole
// that reads classes) and a Lease of its own: both lead at once, each
// makes its own namespaces' clusters and databases Ready, neither is ever
// refused a request, neither writes the class they share, and a namespace
// neither watches is never touched — neither could even read it.
func TestNamespaceScopedInstalls(t *testing.T) {
	a, b, c, unwatched := kit.Namespace(t), kit.Namespace(t), kit.Namespace(t), kit.Namespace(t)
	one := &namespacedInstall{sa: "setpoint-" + a, watch: []string{a, b}, lease: "setpoint-ns-" + a}
	two := &namespacedInstall{sa: "setpoint-" + c, watch: []string{c}, lease: "setpoint-ns-" + c}
	for _, in := range []*namespacedInstall{one, two} {
		in.install(t)
		in.start(t)
	}
	class := "e2e-" + a
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15)})
	for _, ns := range []string{a, b, c, unwatched} {
		newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	}
	kit.CreateDatabase(t, b, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	for _, ns := range []string{a, b, c} {
		kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	}
	kit.WaitDatabase(t, b, "app", pgv1.PhaseReady, 60*time.Second)
	// The second leads its own Lease while the first holds its own.
	if h := leaseHolderOf(t.Context(), one.lease); h != one.sa {
		t.Errorf("Lease %s held by %q, want %q", one.lease, h, one.sa)
	}

	for _, in := range []*namespacedInstall{one, two} {
		for _, s := range in.op.samples(t, "setpoint_api_requests_total") {
			if s.labels["code"] == "Forbidden" {
				t.Errorf("%s was refused %v %s %s requests under the namespaced RBAC", in.sa, s.value, s.labels["verb"], s.labels["resource"])
			}
		}
	}
	cls, err := pg.PostgresV1alpha1().PostgresClusterClasses().Get(t.Context(), class, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(cls.Finalizers, clusterctl.ClassFinalizer) {
		t.Errorf("a namespace-scoped install wrote the shared class: finalizers %v", cls.Finalizers)
	}
	// The unwatched namespace: its RBAC lets neither install read it (no
	// request was refused, so none was tried), so what is there is what
	// the test made.
	pc, err := pg.PostgresV1alpha1().PostgresClusters(unwatched).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pc.Finalizers) != 0 || pc.Status.Phase != "" || len(pc.Status.Conditions) != 0 {
		t.Errorf("the unwatched cluster was touched: finalizers %v, status %+v", pc.Finalizers, pc.Status)
	}
	if cl, err := pg.CNPGV1().Clusters(unwatched).List(t.Context(), metav1.ListOptions{}); err != nil || len(cl.Items) != 0 {
		t.Errorf("CNPG Clusters in the unwatched namespace: %v %v", err, cl)
	}
	if allowed := canList(t, one.kubecfg, unwatched); allowed {
		t.Errorf("the namespaced RBAC lets the install read %s", unwatched)
	}
}

// canList says whether the kubeconfig's user may list PostgresClusters in
// ns (the API server's answer, not a guess).
func canList(t *testing.T, kubeconfig, ns string) bool {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.PostgresV1alpha1().PostgresClusters(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil && !apierrors.IsForbidden(err) {
		t.Fatalf("list as the install: %v", err)
	}
	return err == nil
}
