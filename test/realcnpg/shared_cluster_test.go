package realcnpg

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// A shared cluster on real CNPG (issue 48): cluster shop in namespace
// platform, whose class admits the namespaces labelled tenant=true. Two
// labelled namespaces get Ready databases on it under their own Postgres
// names, log in with their own Secrets and not into each other's
// database; an unlabelled one is refused with nothing written; a
// rotation in a tenant's namespace reaches CNPG through the copy in
// platform (the new password logs in, the old one is refused); deleting a
// tenant's namespace deletes exactly its objects in platform and drops
// its roles, and the other tenant keeps working.
func TestSharedClusterOnRealCNPG(t *testing.T) {
	platform := kit.Namespace(t)
	class := "shared-" + platform
	smallClass(t, class, func(s *pgv1.ClusterSettings) {
		s.Tenants = &pgv1.TenantsSpec{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tenant": "true"}}}
	})
	createCluster(t, platform, "shop", class)
	a, b, stranger := kit.Namespace(t), kit.Namespace(t), kit.Namespace(t)
	for _, ns := range []string{a, b} {
		kit.LabelNamespace(t, ns, map[string]*string{"tenant": ptr.To("true")})
	}
	kit.WaitCluster(t, platform, "shop", pgv1.PhaseReady, 6*time.Minute)
	for _, ns := range []string{a, b, stranger} {
		kit.CreateTenantDatabase(t, ns, "app", platform, "shop", pgv1.DatabaseSpec{Name: "orders"})
	}
	for _, ns := range []string{a, b} {
		kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 4*time.Minute)
	}
	dbA, dbB := naming.TenantPrefix(a, platform)+"orders", naming.TenantPrefix(b, platform)+"orders"
	for ns, db := range map[string]string{a: dbA, b: dbB} {
		for _, kind := range []string{"admin", "rw"} {
			conn, err := kit.Login(t, platform, "shop", db, db+"_"+kind, kit.Password(t, ns, "app-orders-"+kind))
			if err != nil {
				t.Fatalf("%s's %s logging in to %s: %v", ns, kind, db, err)
			}
			// Closed now: CNPG cannot drop a database with sessions open.
			_ = conn.Close(t.Context())
		}
	}
	kit.DeniedEntry(t, platform, "shop", dbA, dbB+"_rw", kit.Password(t, b, "app-orders-rw"))
	kit.DeniedEntry(t, platform, "shop", dbB, dbA+"_admin", kit.Password(t, a, "app-orders-admin"))

	refused := kit.WaitDatabaseCondition(t, stranger, "app", pgv1.ConditionClusterReady, metav1.ConditionFalse, pgv1.ReasonNamespaceNotAdmitted, time.Minute)
	if len(refused.Finalizers) != 0 {
		t.Errorf("finalizers %v on a refused database", refused.Finalizers)
	}
	if s, err := kube.CoreV1().Secrets(stranger).List(t.Context(), metav1.ListOptions{LabelSelector: ownership.ManagedSelector().String()}); err != nil || len(s.Items) != 0 {
		t.Errorf("Secrets written for a refused database: %d %v", len(s.Items), err)
	}
	if r, d, s := kit.ClusterSideOf(t, platform, stranger); r+d+s != 0 {
		t.Errorf("cluster side of a refused database: %d roles, %d databases, %d Secrets", r, d, s)
	}

	// A rotation in a's namespace reaches CNPG through the copy.
	old := map[string]*corev1.Secret{}
	for _, kind := range []string{"admin", "rw"} {
		old[kind] = kit.Secret(t, a, "app-orders-"+kind)
	}
	annotate(t, a, "app", func(name string, patch []byte) error {
		_, err := pg.PostgresV1alpha1().PostgresDatabases(a).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}, pgv1.RotatePasswordsAnnotation, "shared-1")
	kit.Eventually(t, 2*time.Minute, "both roles of a record rotation shared-1", func(ctx context.Context) (bool, string, error) {
		db, err := pg.PostgresV1alpha1().PostgresDatabases(a).Get(ctx, "app", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		rotated, _ := testkit.RotatedFor(db, "shared-1")
		return rotated == 2, testkit.Conditions(db.Status.Phase, db.Status.Conditions), nil
	})
	for kind, before := range old {
		cur := kit.Secret(t, a, "app-orders-"+kind)
		kit.PasswordSwitched(t, platform, "shop", dbA, dbA+"_"+kind, string(before.Data["password"]), string(cur.Data["password"]))
	}

	// a's namespace deleted: exactly its objects in platform go.
	var before [3]int
	before[0], before[1], before[2] = kit.ClusterSideOf(t, platform, b)
	passwordA := kit.Password(t, a, "app-orders-rw")
	if err := kube.CoreV1().Namespaces().Delete(t.Context(), a, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Eventually(t, 4*time.Minute, "namespace "+a+" deleted", func(ctx context.Context) (bool, string, error) {
		_, err := kube.CoreV1().Namespaces().Get(ctx, a, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		return false, holding(ctx, a), err
	})
	if r, d, s := kit.ClusterSideOf(t, platform, a); r+d+s != 0 {
		t.Errorf("left of %s in %s: %d roles, %d databases, %d Secrets", a, platform, r, d, s)
	}
	if _, err := kit.Login(t, platform, "shop", dbA, dbA+"_rw", passwordA); err == nil {
		t.Errorf("%s_rw still logs in after its namespace was deleted (deletionPolicy Delete)", dbA)
	}
	var after [3]int
	after[0], after[1], after[2] = kit.ClusterSideOf(t, platform, b)
	if before != after || after[0] == 0 {
		t.Errorf("%s's objects in %s changed: %v, then %v", b, platform, before, after)
	}
	if _, err := kit.Login(t, platform, "shop", dbB, dbB+"_rw", kit.Password(t, b, "app-orders-rw")); err != nil {
		t.Errorf("%s logging in after %s's namespace went: %v", b, a, err)
	}
}
