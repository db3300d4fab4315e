package realcnpg

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Deleting a whole namespace on real CNPG: the API server deletes every
// object at once, so setpoint's finalizers, CNPG's (cnpg.io/deleteRole on
// each DatabaseRole, which only a running instance can honour) and the
// Pods go in whatever order the namespace controller picks. The
// namespace must still go, with no finalizer left holding it, whatever
// the databases' deletion policies.
func TestNamespaceDeletionOnRealCNPG(t *testing.T) {
	ns := kit.Namespace(t)
	smallClass(t, "small-"+ns)
	createCluster(t, ns, "shop", "small-"+ns)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	kit.CreateDatabase(t, ns, "app", "shop",
		pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true},
		pgv1.DatabaseSpec{Name: "catalog", DeletionPolicy: pgv1.DeletionPolicyRetain})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)

	start := time.Now()
	if err := kube.CoreV1().Namespaces().Delete(t.Context(), ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Eventually(t, 4*time.Minute, "the namespace is deleted", func(ctx context.Context) (bool, string, error) {
		_, err := kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		return false, holding(ctx, ns), err
	})
	t.Logf("namespace with a Ready cluster and database deleted in %s", time.Since(start).Round(time.Second))
}

// holding names what is left in ns: each object of setpoint's and CNPG's
// kinds with its finalizers, and the Pods.
func holding(ctx context.Context, ns string) string {
	opts := metav1.ListOptions{}
	var out []string
	add := func(kind string, list runtime.Object, err error) {
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", kind, err))
			return
		}
		objs, _ := meta.ExtractList(list)
		for _, o := range objs {
			if m, err := meta.Accessor(o); err == nil {
				out = append(out, fmt.Sprintf("%s/%s %v", kind, m.GetName(), m.GetFinalizers()))
			}
		}
	}
	dbs, err := pg.PostgresV1alpha1().PostgresDatabases(ns).List(ctx, opts)
	add("PostgresDatabase", dbs, err)
	clusters, err := pg.PostgresV1alpha1().PostgresClusters(ns).List(ctx, opts)
	add("PostgresCluster", clusters, err)
	roles, err := pg.CNPGV1().DatabaseRoles(ns).List(ctx, opts)
	add("DatabaseRole", roles, err)
	databases, err := pg.CNPGV1().Databases(ns).List(ctx, opts)
	add("Database", databases, err)
	cnpg, err := pg.CNPGV1().Clusters(ns).List(ctx, opts)
	add("Cluster", cnpg, err)
	pods, err := kube.CoreV1().Pods(ns).List(ctx, opts)
	add("Pod", pods, err)
	return strings.Join(out, "; ")
}
