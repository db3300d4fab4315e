package e2e_test

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// tenantLabel is what the shared clusters of these tests admit by.
var tenantLabel = map[string]string{"tenant": "true"}

// sharedCluster starts a cluster-wide operator and a Ready cluster "shop"
// in platform that admits the namespaces labelled tenant=true.
func sharedCluster(t *testing.T, platform string) {
	t.Helper()
	startOperator(t, "shared", "--leader-elect=false", "--postgres-host-map", hostMap, "--resync-period", "2s")
	class := "shared-" + platform
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15)})
	newCluster(t, platform, "shop", class, pgv1.ClusterSettings{
		Tenants: &pgv1.TenantsSpec{NamespaceSelector: &metav1.LabelSelector{MatchLabels: tenantLabel}},
	}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, platform, "shop", pgv1.PhaseReady, 120*time.Second)
}

// tenantNamespace is a test namespace labelled tenant=true.
func tenantNamespace(t *testing.T) string {
	t.Helper()
	ns := kit.Namespace(t)
	kit.LabelNamespace(t, ns, map[string]*string{"tenant": ptr.To("true")})
	return ns
}

// Two labelled namespaces put a PostgresDatabase of one name, with one
// database name, on a cluster of a third: both Ready, under names of their
// own (the namespace prefix), each logging in with its own Secret and
// neither into the other's database. An unlabelled namespace is refused
// with nothing written; a DatabaseRole of the name a tenant needs, made by
// hand, is refused and left alone; a namespace unlabelled later keeps
// working, marked; a PostgresDatabase deleted takes exactly its cluster
// side with it.
func TestSharedClusterServesAdmittedNamespaces(t *testing.T) {
	platform := kit.Namespace(t)
	sharedCluster(t, platform)
	a, b, stranger, squatted := tenantNamespace(t), tenantNamespace(t), kit.Namespace(t), tenantNamespace(t)

	// A DatabaseRole by hand, under the name squatted's admin role needs.
	squattedRole := naming.TenantPrefix(squatted, platform) + "orders_admin"
	handMade := &cnpgv1.DatabaseRole{ObjectMeta: metav1.ObjectMeta{Name: naming.RoleObject("shop", squattedRole), Namespace: platform},
		Spec: cnpgv1.DatabaseRoleSpec{Cluster: cnpgv1.LocalObjectReference{Name: "shop"}, Name: squattedRole, Login: true}}
	if _, err := pg.CNPGV1().DatabaseRoles(platform).Create(t.Context(), handMade, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	for _, ns := range []string{a, b, stranger, squatted} {
		kit.CreateTenantDatabase(t, ns, "app", platform, "shop", pgv1.DatabaseSpec{Name: "orders"})
	}
	for _, ns := range []string{a, b} {
		db := kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
		if c := meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionAdmitted); c == nil || c.Status != metav1.ConditionTrue {
			t.Errorf("%s: Admitted = %+v", ns, c)
		}
	}
	dbA, dbB := naming.TenantPrefix(a, platform)+"orders", naming.TenantPrefix(b, platform)+"orders"
	if _, err := kit.Login(t, platform, "shop", dbA, dbA+"_rw", kit.Password(t, a, "app-orders-rw")); err != nil {
		t.Fatalf("%s's app logging in: %v", a, err)
	}
	if _, err := kit.Login(t, platform, "shop", dbB, dbB+"_admin", kit.Password(t, b, "app-orders-admin")); err != nil {
		t.Fatalf("%s's app logging in: %v", b, err)
	}
	// The isolation rules hold across tenants.
	kit.DeniedEntry(t, platform, "shop", dbA, dbB+"_rw", kit.Password(t, b, "app-orders-rw"))
	kit.DeniedEntry(t, platform, "shop", dbB, dbA+"_admin", kit.Password(t, a, "app-orders-admin"))

	// Refused: the cluster named, the rule quoted, nothing written.
	refused := kit.WaitDatabaseCondition(t, stranger, "app", pgv1.ConditionClusterReady, metav1.ConditionFalse, pgv1.ReasonNamespaceNotAdmitted, time.Minute)
	if c := meta.FindStatusCondition(refused.Status.Conditions, pgv1.ConditionClusterReady); c == nil || !strings.Contains(c.Message, "PostgresCluster "+platform+"/shop") || !strings.Contains(c.Message, `"tenant=true"`) {
		t.Errorf("refusal = %+v", c)
	}
	if len(refused.Finalizers) != 0 {
		t.Errorf("finalizers %v on a refused database", refused.Finalizers)
	}
	if s, err := kube.CoreV1().Secrets(stranger).List(t.Context(), metav1.ListOptions{LabelSelector: ownership.ManagedSelector().String()}); err != nil || len(s.Items) != 0 {
		t.Errorf("Secrets written for a refused database: %v %v", s, err)
	}
	if r, d, s := kit.ClusterSideOf(t, platform, stranger); r+d+s != 0 {
		t.Errorf("cluster side of a refused database: %d roles, %d databases, %d Secrets", r, d, s)
	}

	// The hand-made DatabaseRole: refused, untouched.
	kit.WaitDatabaseCondition(t, squatted, "app", pgv1.ConditionRolesReady, metav1.ConditionFalse, pgv1.ReasonRoleConflict, time.Minute)
	if got, err := pg.CNPGV1().DatabaseRoles(platform).Get(t.Context(), handMade.Name, metav1.GetOptions{}); err != nil || len(got.Labels) != 0 || got.Spec.PasswordSecret != nil {
		t.Errorf("the hand-made DatabaseRole was changed: %+v %v", got, err)
	}

	// b's admission withdrawn: kept, working, marked.
	kit.LabelNamespace(t, b, map[string]*string{"tenant": nil})
	kit.WaitDatabaseCondition(t, b, "app", pgv1.ConditionAdmitted, metav1.ConditionFalse, pgv1.ReasonAdmissionWithdrawn, time.Minute)
	if _, err := kit.Login(t, platform, "shop", dbB, dbB+"_rw", kit.Password(t, b, "app-orders-rw")); err != nil {
		t.Fatalf("withdrawn %s's app logging in: %v", b, err)
	}

	// a's PostgresDatabase deleted: its cluster side goes, b's stays.
	before := [3]int{}
	before[0], before[1], before[2] = kit.ClusterSideOf(t, platform, b)
	passwordA := kit.Password(t, a, "app-orders-rw")
	kit.DeleteDatabase(t, a, "app")
	if r, d, s := kit.ClusterSideOf(t, platform, a); r+d+s != 0 {
		t.Errorf("left of %s on the cluster side: %d roles, %d databases, %d Secrets", a, r, d, s)
	}
	if _, err := kit.Login(t, platform, "shop", dbA, dbA+"_rw", passwordA); err == nil {
		t.Errorf("%s still logs in after deletion (Delete policy)", dbA+"_rw")
	}
	after := [3]int{}
	after[0], after[1], after[2] = kit.ClusterSideOf(t, platform, b)
	if before != after || after[0] == 0 {
		t.Errorf("%s's cluster side changed with %s's deletion: %v, then %v", b, a, before, after)
	}
}
