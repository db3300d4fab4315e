package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// selectorInstall is a namespace-scoped install with
// --watch-namespace-selector and no fixed namespaces: the RBAC of
// overlays/namespace-selector (the namespace reader, ClusterRole
// <sa>-tenant) and overlays/namespaced's class reader, the tenant role
// bound in each of tenants by a RoleBinding, as the platform does when
// it onboards a namespace.
func (in *namespacedInstall) installSelector(t *testing.T, tenants ...string) {
	t.Helper()
	overlay := filepath.Join("..", "..", "overlays")
	var objs []*unstructured.Unstructured
	objs = append(objs, in.decode(t, filepath.Join(overlay, "namespace-selector", "namespace_reader.yaml"), "")...)
	objs = append(objs, in.decode(t, filepath.Join(overlay, "namespace-selector", "tenant_role.yaml"), "")...)
	objs = append(objs, in.decode(t, filepath.Join(overlay, "namespaced", "class_reader.yaml"), "")...)
	objs = append(objs, in.decode(t, filepath.Join("..", "..", "manifests", "rbac", "leader_election_role.yaml"), "setpoint-system")...)
	if _, err := envtest.ApplyObjects(t.Context(), env.Config, "e2e", objs); err != nil {
		t.Fatal(err)
	}
	for _, ns := range tenants {
		in.bindTenant(t, ns)
	}
	in.kubecfg = impersonatingKubeconfig(t, "system:serviceaccount:setpoint-system:"+in.sa)
}

// bindTenant binds ClusterRole <sa>-tenant in ns, as the platform does
// when it onboards a namespace of a namespace-scoped install.
func (in *namespacedInstall) bindTenant(t *testing.T, ns string) {
	t.Helper()
	rb := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
		"metadata": map[string]any{"name": in.sa, "namespace": ns},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": in.sa + "-tenant"},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": in.sa, "namespace": "setpoint-system"}},
	}}
	if _, err := envtest.ApplyObjects(t.Context(), env.Config, "e2e", []*unstructured.Unstructured{rb}); err != nil {
		t.Fatal(err)
	}
}

// startSelectorInstall installs a selector install named after
// namespaces[0] with RoleBindings in bound, makes a cluster "shop" in each
// namespace, labels those of labelled, and starts the operator selecting
// the label key=value it returns.
func startSelectorInstall(t *testing.T, namespaces, bound []string, labelled ...string) (in *namespacedInstall, key, value string) {
	t.Helper()
	key, value = "e2e.setpoint.dev/tenant", namespaces[0]
	in = &namespacedInstall{sa: "setpoint-" + value, lease: "setpoint-sel-" + value}
	in.installSelector(t, bound...)
	for _, ns := range labelled {
		labelNamespace(t, ns, key, &value)
	}
	class := "e2e-" + value
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15)})
	for _, ns := range namespaces {
		newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	}
	in.op = startOperator(t, in.sa, "--kubeconfig", in.kubecfg, "--watch-namespace-selector", key+"="+value,
		"--leader-election-id", in.lease, "--postgres-host-map", hostMap)
	waitLeaseHolder(t, in.lease, in.sa)
	return in, key, value
}

// labelNamespace sets (value non-nil) or removes a label of ns.
func labelNamespace(t *testing.T, ns, key string, value *string) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{key: value}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Namespaces().Patch(t.Context(), ns, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitSelected waits until the operator runs the scopes of exactly n
// selected namespaces: after a label's removal, until that namespace's
// workers and informers have stopped.
func waitSelected(t *testing.T, op *operatorProc, n float64) {
	t.Helper()
	kit.Eventually(t, 30*time.Second, fmt.Sprintf("setpoint_selected_namespaces %v", n), func(context.Context) (bool, string, error) {
		got := op.metric(t, "setpoint_selected_namespaces")
		return got == n, fmt.Sprint(got), nil
	})
}

// A namespace-scoped install with --watch-namespace-selector and no
// restart: a namespace labelled while it runs is reconciled within
// seconds (the time from the label to the first reconcile is printed),
// and one unlabelled is released: a database created there afterwards
// is never acted on while one created at the same time in a
// still-selected namespace becomes Ready, and nothing of the released
// namespace is deleted. The install's RBAC (namespaces list and watch
// cluster-wide, the rest per namespace) is never refused a request, and
// cannot list the selected kinds cluster-wide, so no informer watches the
// whole cluster.
func TestWatchNamespaceSelector(t *testing.T) {
	stays, joins := kit.Namespace(t), kit.Namespace(t)
	in, key, value := startSelectorInstall(t, []string{stays, joins}, []string{stays, joins}, stays)
	kit.WaitCluster(t, stays, "shop", pgv1.PhaseReady, 120*time.Second)
	waitSelected(t, in.op, 1)

	// Onboarding: the label alone, the operator running.
	labelled := time.Now()
	labelNamespace(t, joins, key, &value)
	kit.Eventually(t, 30*time.Second, "the first reconcile of "+joins+"/shop", func(ctx context.Context) (bool, string, error) {
		c, err := pg.PostgresV1alpha1().PostgresClusters(joins).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return c.Status.Phase != "", fmt.Sprintf("phase %q", c.Status.Phase), nil
	})
	t.Logf("label → first reconcile (status written): %v", time.Since(labelled).Round(time.Millisecond))
	kit.WaitCluster(t, joins, "shop", pgv1.PhaseReady, 120*time.Second)
	t.Logf("label → Ready: %v", time.Since(labelled).Round(time.Millisecond))
	waitSelected(t, in.op, 2)

	// Release: the label removed; once the namespace's workers have
	// stopped (the gauge), a database in each namespace.
	labelNamespace(t, joins, key, nil)
	waitSelected(t, in.op, 1)
	kit.CreateDatabase(t, joins, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.CreateDatabase(t, stays, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, stays, "app", pgv1.PhaseReady, 60*time.Second)
	d, err := pg.PostgresV1alpha1().PostgresDatabases(joins).Get(t.Context(), "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Finalizers) != 0 || d.Status.Phase != "" || len(d.Status.Conditions) != 0 {
		t.Errorf("the released namespace's new database was acted on: finalizers %v, status %+v", d.Finalizers, d.Status)
	}
	// Nothing released is deleted: the cluster keeps its finalizer and
	// its CNPG Cluster.
	c, err := pg.PostgresV1alpha1().PostgresClusters(joins).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.DeletionTimestamp != nil || len(c.Finalizers) == 0 || c.Status.Phase != pgv1.PhaseReady {
		t.Errorf("the released cluster changed: deletion %v, finalizers %v, phase %q", c.DeletionTimestamp, c.Finalizers, c.Status.Phase)
	}
	if _, err := pg.CNPGV1().Clusters(joins).Get(t.Context(), "shop", metav1.GetOptions{}); err != nil {
		t.Errorf("the released namespace's CNPG Cluster: %v", err)
	}
	if !strings.Contains(in.op.logs(), "Namespace no longer selected") {
		t.Error("the operator did not log the release")
	}

	for _, s := range in.op.samples(t, "setpoint_api_requests_total") {
		if s.labels["code"] == "Forbidden" {
			t.Errorf("%s was refused %v %s %s requests", in.sa, s.value, s.labels["verb"], s.labels["resource"])
		}
	}
	if canList(t, in.kubecfg, metav1.NamespaceAll) {
		t.Error("the install may list PostgresClusters cluster-wide: a namespaced install's RBAC must not allow it")
	}
	if got := namespacesOf(t, in.op); !slices.Equal(got, []string{stays}) {
		t.Errorf("selected namespaces %v, want [%s]", got, stays)
	}
}

// A namespace labelled before its RoleBinding exists (a namespace-scoped
// install) holds nothing else back: a bound namespace labelled after it
// becomes Ready while the operator is refused in the unbound one (its
// informers' Forbidden requests), and once the binding exists the
// waiting namespace is reconciled too, without a restart.
func TestWatchNamespaceSelectorWaitsForTheBinding(t *testing.T) {
	bound, late := kit.Namespace(t), kit.Namespace(t)
	in, key, value := startSelectorInstall(t, []string{bound, late}, []string{bound})

	labelNamespace(t, late, key, &value)
	kit.Eventually(t, 30*time.Second, "the operator refused in "+late, func(context.Context) (bool, string, error) {
		n := in.op.metric(t, "setpoint_api_requests_total", "code", "Forbidden")
		return n > 0, fmt.Sprintf("%v Forbidden", n), nil
	})
	labelNamespace(t, bound, key, &value)
	kit.WaitCluster(t, bound, "shop", pgv1.PhaseReady, 120*time.Second)

	in.bindTenant(t, late)
	kit.WaitCluster(t, late, "shop", pgv1.PhaseReady, 120*time.Second)
	waitSelected(t, in.op, 2)
}

// namespacesOf are the namespaces the operator's state metrics report
// clusters of: those whose scopes run (a stopped scope's caches leave the
// state metrics with it).
func namespacesOf(t *testing.T, op *operatorProc) []string {
	t.Helper()
	var out []string
	for _, s := range op.samples(t, "setpoint_cluster_status_phase") {
		if ns := s.labels["namespace"]; !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return out
}

// selectedAtScale is how many selected namespaces the memory measure
// runs (issue 48: memory at 50 namespaces).
const selectedAtScale = 50

// The memory of --watch-namespace-selector at 50 selected namespaces: the
// operator (cluster-wide RBAC, so a label alone onboards) starts with
// none selected, then 50 empty namespaces are labelled; once it runs all
// 50 scopes, each of whose caches has synced (the informers' lists of 50
// namespaces), its resident set and live Go heap are printed beside the
// figures with none selected. What is measured is the per-namespace
// overhead: one set of informers (one list and watch per kind), queues
// and workers per namespace. docs/benchmarks/README.md records the
// figures; nothing is asserted of them, only that the 50 scopes run.
func TestWatchNamespaceSelectorMemory(t *testing.T) {
	first := kit.Namespace(t)
	key, value := "e2e.setpoint.dev/scale", first
	profiling := freeAddr(t)
	op := startOperator(t, "setpoint-scale-"+first, "--watch-namespace-selector", key+"="+value,
		"--leader-election-id", "setpoint-scale-"+first, "--postgres-host-map", hostMap, "--profiling-bind-address", profiling)
	waitLeaseHolder(t, "setpoint-scale-"+first, "setpoint-scale-"+first)
	waitSelected(t, op, 0)
	before := memoryOf(t, op, profiling)

	namespaces := []string{first}
	for len(namespaces) < selectedAtScale {
		namespaces = append(namespaces, kit.Namespace(t))
	}
	for _, ns := range namespaces {
		labelNamespace(t, ns, key, &value)
	}
	waitSelected(t, op, selectedAtScale)
	// Every scope's caches synced: the operator logs it per namespace.
	kit.Eventually(t, 2*time.Minute, "every selected namespace's caches synced", func(context.Context) (bool, string, error) {
		n := strings.Count(op.logs(), "Namespace's caches synced")
		return n >= selectedAtScale, fmt.Sprintf("%d started", n), nil
	})
	after := memoryOf(t, op, profiling)
	t.Logf("--watch-namespace-selector memory: 0 selected: RSS %.1f MiB, heap in use %.1f MiB; %d selected: RSS %.1f MiB, heap in use %.1f MiB; per namespace: RSS %.0f KiB, heap %.0f KiB",
		before.rss/(1<<20), before.heap/(1<<20), selectedAtScale, after.rss/(1<<20), after.heap/(1<<20),
		(after.rss-before.rss)/selectedAtScale/1024, (after.heap-before.heap)/selectedAtScale/1024)
}

type memory struct{ rss, heap float64 }

// memoryOf reads the operator's resident set and Go heap in use from its
// own /metrics (the process and Go collectors), right after a collection
// (a heap profile with gc=1, from its --profiling-bind-address): the heap
// is then what is live, not what the last collection left to sweep.
func memoryOf(t *testing.T, op *operatorProc, profiling string) memory {
	t.Helper()
	resp, err := http.Get("http://" + profiling + "/debug/pprof/heap?gc=1")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("heap profile: %s", resp.Status)
	}
	return memory{rss: op.metric(t, "process_resident_memory_bytes"), heap: op.metric(t, "go_memstats_heap_inuse_bytes")}
}
