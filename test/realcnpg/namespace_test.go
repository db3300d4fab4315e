package realcnpg

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Deleting a whole namespace on real CNPG: the API server deletes every
// object at once, so setpoint's finalizers, CNPG's (cnpg.io/deleteRole on
// each DatabaseRole, which only a running instance can honour) and the
// Pods go in whatever order the namespace controller picks. The
// namespace must still go, with no finalizer left holding it, whatever
// the databases' deletion policies.
func TestNamespaceDeletionOnRealCNPG(t *testing.T) {
	ns := newNamespace(t)
	smallClass(t, "small-"+ns)
	createCluster(t, ns, "shop", "small-"+ns)
	waitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	createDatabase(t, ns, "app", "shop",
		pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true},
		pgv1.DatabaseSpec{Name: "catalog", DeletionPolicy: pgv1.DeletionPolicyRetain})
	waitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)

	start := time.Now()
	if err := kube.CoreV1().Namespaces().Delete(t.Context(), ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 4*time.Minute, "the namespace is deleted", func(ctx context.Context) (bool, string, error) {
		_, err := kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		return false, holding(ctx, ns), err
	})
	t.Logf("namespace with a Ready cluster and database deleted in %s", time.Since(start).Round(time.Second))
}

// holding names the objects of ns that still carry finalizers.
func holding(ctx context.Context, ns string) string {
	var out []string
	if l, err := pg.PostgresV1alpha1().PostgresDatabases(ns).List(ctx, metav1.ListOptions{}); err == nil {
		for _, o := range l.Items {
			out = append(out, fmt.Sprintf("PostgresDatabase/%s %v", o.Name, o.Finalizers))
		}
	}
	if l, err := pg.PostgresV1alpha1().PostgresClusters(ns).List(ctx, metav1.ListOptions{}); err == nil {
		for _, o := range l.Items {
			out = append(out, fmt.Sprintf("PostgresCluster/%s %v", o.Name, o.Finalizers))
		}
	}
	if l, err := pg.CNPGV1().DatabaseRoles(ns).List(ctx, metav1.ListOptions{}); err == nil {
		for _, o := range l.Items {
			out = append(out, fmt.Sprintf("DatabaseRole/%s %v", o.Name, o.Finalizers))
		}
	}
	if l, err := pg.CNPGV1().Databases(ns).List(ctx, metav1.ListOptions{}); err == nil {
		for _, o := range l.Items {
			out = append(out, fmt.Sprintf("Database/%s %v", o.Name, o.Finalizers))
		}
	}
	if l, err := pg.CNPGV1().Clusters(ns).List(ctx, metav1.ListOptions{}); err == nil {
		for _, o := range l.Items {
			out = append(out, fmt.Sprintf("Cluster/%s %v", o.Name, o.Finalizers))
		}
	}
	if l, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); err == nil {
		for _, o := range l.Items {
			out = append(out, fmt.Sprintf("Pod/%s %s", o.Name, o.Status.Phase))
		}
	}
	return strings.Join(out, "; ")
}
