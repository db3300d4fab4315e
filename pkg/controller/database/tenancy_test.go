package database

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// The shared cluster of these tests lives in platform; the tenant's
// PostgresDatabase "shop" in the fixture's namespace ns.
const platform = "platform-db"

// tenantPrefix is what the Postgres names of ns's databases start with.
var tenantPrefix = naming.TenantPrefix(ns, platform)

func sharedCluster(tenants *pgv1.TenantsSpec) *pgv1.PostgresCluster {
	pc := readyCluster()
	pc.Namespace = platform
	pc.Spec.Tenants = tenants
	return pc
}

func tenantDatabase() *pgv1.PostgresDatabase {
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", DeletionPolicy: pgv1.DeletionPolicyDelete})
	db.Spec.ClusterRef.Namespace = platform
	return db
}

func tenantFixture(t *testing.T, tenants *pgv1.TenantsSpec, extra ...runtime.Object) *fixture {
	t.Helper()
	return newFixture(t, clusterSecretsIn(platform), append([]runtime.Object{sharedCluster(tenants), tenantDatabase()}, extra...))
}

// convergeTenant is converge for the tenant: CNPG plays in platform.
func convergeTenant(t *testing.T, f *fixture) {
	t.Helper()
	for range 2 {
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		f.applyRolesIn(platform)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.markAppliedIn(platform, naming.ClusterSide(ns, "shop-orders"), true, "")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if db := f.db("shop"); db.Status.Phase != pgv1.PhaseReady {
		t.Fatalf("not Ready: %+v", db.Status)
	}
}

// A cluster without tenants admits only its own namespace: the tenant is
// refused with the cluster named, and the pass writes nothing but the
// status — no Secret, no finalizer, nothing on the cluster side.
func TestTenantNotAdmittedWritesNothing(t *testing.T) {
	t.Parallel()
	f := tenantFixture(t, nil)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); !slices.Equal(w, []string{"update postgresdatabases/status"}) {
		t.Fatalf("writes = %v, want only the status", w)
	}
	db := f.db("shop")
	c := cond(t, db, pgv1.ConditionClusterReady)
	if c.Status != metav1.ConditionFalse || c.Reason != pgv1.ReasonNamespaceNotAdmitted ||
		!strings.Contains(c.Message, "PostgresCluster "+platform+"/pg admits only its own namespace") {
		t.Fatalf("ClusterReady = %+v", c)
	}
	if db.Status.Phase != pgv1.PhasePending || len(db.Finalizers) != 0 {
		t.Fatalf("phase %s, finalizers %v", db.Status.Phase, db.Finalizers)
	}
	// A list that names other namespaces refuses it too, naming the list.
	f.setClusterSpec(platform, func(pc *pgv1.PostgresCluster) { pc.Spec.Tenants = &pgv1.TenantsSpec{Namespaces: []string{"team-b"}} })
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if c := cond(t, f.db("shop"), pgv1.ConditionClusterReady); !strings.Contains(c.Message, "tenants.namespaces lists [team-b]") {
		t.Fatalf("ClusterReady = %+v", c)
	}
}

// Admitted, the tenant's cluster side is in the cluster's namespace,
// prefixed, owned by labels with its uid and no owner reference; CNPG
// reads the password from a copy of the tenant's Secret.
func TestTenantAdmittedLivesOnTheClusterSide(t *testing.T) {
	t.Parallel()
	f := tenantFixture(t, &pgv1.TenantsSpec{Namespaces: []string{ns}})
	convergeTenant(t, f)
	db := f.db("shop")
	if c := cond(t, db, pgv1.ConditionAdmitted); c.Status != metav1.ConditionTrue {
		t.Fatalf("Admitted = %+v", c)
	}
	want := ownership.TenantLabels(ns, "shop", db.UID)
	owned := func(m metav1.Object) {
		t.Helper()
		for k, v := range want {
			if m.GetLabels()[k] != v {
				t.Errorf("%s: label %s = %q, want %q", m.GetName(), k, m.GetLabels()[k], v)
			}
		}
		if len(m.GetOwnerReferences()) != 0 {
			t.Errorf("%s: owner references %v across namespaces", m.GetName(), m.GetOwnerReferences())
		}
	}
	role := tenantPrefix + "orders_admin"
	r, err := f.pg.CNPGV1().DatabaseRoles(platform).Get(t.Context(), naming.RoleObject("pg", role), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owned(r)
	copyName := naming.ClusterSide(ns, "shop-orders-admin")
	if r.Spec.Name != role || r.Spec.PasswordSecret == nil || r.Spec.PasswordSecret.Name != copyName {
		t.Fatalf("DatabaseRole spec = %+v", r.Spec)
	}
	cp, err := f.kube.CoreV1().Secrets(platform).Get(t.Context(), copyName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owned(cp)
	if src := f.secret("shop-orders-admin"); string(cp.Data["password"]) != string(src.Data["password"]) || string(src.Data["username"]) != role {
		t.Fatal("the copy does not hold the tenant Secret's credentials")
	}
	d, err := f.pg.CNPGV1().Databases(platform).Get(t.Context(), naming.ClusterSide(ns, "shop-orders"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owned(d)
	if d.Spec.Name != tenantPrefix+"orders" || d.Spec.Owner != role {
		t.Fatalf("CNPG Database spec = %+v", d.Spec)
	}
	// Nothing of the cluster side in the tenant's namespace.
	if l, _ := f.pg.CNPGV1().DatabaseRoles(ns).List(t.Context(), metav1.ListOptions{}); len(l.Items) != 0 {
		t.Fatalf("DatabaseRoles in the tenant's namespace: %d", len(l.Items))
	}
	// A rotation of the tenant's Secret reaches the copy in the same pass.
	f.annotate("shop", map[string]string{pgv1.RotatePasswordsAnnotation: "r1"})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	cp, _ = f.kube.CoreV1().Secrets(platform).Get(t.Context(), copyName, metav1.GetOptions{})
	if src := f.secret("shop-orders-admin"); string(cp.Data["password"]) != string(src.Data["password"]) || cp.Labels[ownership.ReloadLabel] != "true" {
		t.Fatal("the rotated password did not reach the copy CloudNativePG reads")
	}
}

// A DatabaseRole of the same name held by another tenant (labels with
// another uid) is refused with the holder named and left untouched.
func TestTenantForeignRoleRefused(t *testing.T) {
	t.Parallel()
	obj := naming.RoleObject("pg", tenantPrefix+"orders_admin")
	foreign := &cnpgv1.DatabaseRole{ObjectMeta: metav1.ObjectMeta{Name: obj, Namespace: platform,
		Labels: ownership.TenantLabels("team-b", "other", "uid-other")},
		Spec: cnpgv1.DatabaseRoleSpec{Cluster: cnpgv1.LocalObjectReference{Name: "pg"}, Name: tenantPrefix + "orders_admin"}}
	f := tenantFixture(t, &pgv1.TenantsSpec{Namespaces: []string{ns}}, foreign)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	c := cond(t, f.db("shop"), pgv1.ConditionRolesReady)
	if c.Reason != pgv1.ReasonRoleConflict || !strings.Contains(c.Message, "PostgresDatabase team-b/other, UID uid-other") {
		t.Fatalf("RolesReady = %+v", c)
	}
	got, err := f.pg.CNPGV1().DatabaseRoles(platform).Get(t.Context(), obj, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels[ownership.DatabaseUIDLabel] != "uid-other" || got.Spec.PasswordSecret != nil {
		t.Fatalf("the foreign DatabaseRole was changed: %+v", got)
	}
}

// Admission withdrawn: what exists stays and nothing is written but the
// status, which says so.
func TestTenantAdmissionWithdrawnKeepsEverything(t *testing.T) {
	t.Parallel()
	f := tenantFixture(t, &pgv1.TenantsSpec{Namespaces: []string{ns}})
	convergeTenant(t, f)
	f.setClusterSpec(platform, func(pc *pgv1.PostgresCluster) { pc.Spec.Tenants = nil })
	f.annotate("shop", map[string]string{pgv1.RotatePasswordsAnnotation: "r1"})
	before := f.secret("shop-orders-admin")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); !slices.Equal(w, []string{"update postgresdatabases/status"}) {
		t.Fatalf("writes = %v, want only the status", w)
	}
	db := f.db("shop")
	if c := cond(t, db, pgv1.ConditionAdmitted); c.Status != metav1.ConditionFalse || c.Reason != pgv1.ReasonAdmissionWithdrawn {
		t.Fatalf("Admitted = %+v", c)
	}
	if db.Status.Phase != pgv1.PhaseReady || !meta.IsStatusConditionTrue(db.Status.Conditions, pgv1.ConditionReady) {
		t.Fatalf("a withdrawn database stays Ready: %+v", db.Status)
	}
	if after := f.secret("shop-orders-admin"); string(after.Data["password"]) != string(before.Data["password"]) {
		t.Fatal("rotated while admission is withdrawn")
	}
}

// Deleting the tenant's PostgresDatabase deletes exactly its cluster-side
// objects, found by its labels; another tenant's stay.
func TestTenantDeletionCleansItsClusterSide(t *testing.T) {
	t.Parallel()
	other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: naming.ClusterSide("team-b", "shop-orders-admin"), Namespace: platform,
		Labels: ownership.TenantLabels("team-b", "shop", "uid-b")}}
	f := newFixture(t, append(clusterSecretsIn(platform), other),
		[]runtime.Object{sharedCluster(&pgv1.TenantsSpec{Namespaces: []string{ns}}), tenantDatabase()})
	convergeTenant(t, f)
	db := f.db("shop")
	db.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for range 6 {
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		f.applyRolesIn(platform)
		if d, err := f.pg.CNPGV1().Databases(platform).Get(t.Context(), naming.ClusterSide(ns, "shop-orders"), metav1.GetOptions{}); err == nil && d.DeletionTimestamp != nil {
			if err := f.pg.Tracker().Delete(cnpgv1.SchemeGroupVersion.WithResource("databases"), platform, d.Name); err != nil {
				t.Fatal(err)
			}
		}
	}
	if roles, _ := f.pg.CNPGV1().DatabaseRoles(platform).List(t.Context(), metav1.ListOptions{}); len(roles.Items) != 0 {
		t.Fatalf("DatabaseRoles left: %d", len(roles.Items))
	}
	secrets, _ := f.kube.CoreV1().Secrets(platform).List(t.Context(), metav1.ListOptions{})
	var left []string
	for _, s := range secrets.Items {
		left = append(left, s.Name)
	}
	slices.Sort(left)
	if want := []string{"pg-ca", "pg-superuser", other.Name}; !slices.Equal(left, want) {
		t.Fatalf("Secrets in %s = %v, want %v", platform, left, want)
	}
	if _, ok := f.sql.role(tenantPrefix + "orders_admin"); ok {
		t.Fatal("role not dropped under deletionPolicy Delete")
	}
}

// The prefix makes a name too long for Postgres: refused, naming why.
func TestTenantPrefixTooLong(t *testing.T) {
	t.Parallel()
	db := tenantDatabase()
	db.Spec.Databases[0].Name = strings.Repeat("a", 50)
	if err := validate(db); err == nil || !strings.Contains(err.Error(), "with the prefix") {
		t.Fatalf("validate = %v", err)
	}
}

// setClusterSpec changes the spec of cluster pg of namespace.
func (f *fixture) setClusterSpec(namespace string, mutate func(*pgv1.PostgresCluster)) {
	f.t.Helper()
	pc, err := f.pg.PostgresV1alpha1().PostgresClusters(namespace).Get(f.t.Context(), "pg", metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	mutate(pc)
	if _, err := f.pg.PostgresV1alpha1().PostgresClusters(namespace).Update(f.t.Context(), pc, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// A selector admits by the namespace's labels, read from the Namespace
// cache: labelled, admitted; not, refused with the selector named.
func TestTenantAdmittedBySelector(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		labels map[string]string
		admit  bool
	}{{map[string]string{"tenant": "true"}, true}, {nil, false}} {
		nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: tc.labels}}
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{"tenant": "true"}}
		f := newFixture(t, append(clusterSecretsIn(platform), nsObj),
			[]runtime.Object{sharedCluster(&pgv1.TenantsSpec{NamespaceSelector: sel}), tenantDatabase()})
		go f.c.namespaces.RunWithContext(t.Context())
		if !cache.WaitForCacheSync(t.Context().Done(), f.c.namespaces.HasSynced) {
			t.Fatal("Namespace cache did not sync")
		}
		if _, err := f.syncReported("shop"); err != nil {
			t.Fatal(err)
		}
		db := f.db("shop")
		if tc.admit {
			if c := cond(t, db, pgv1.ConditionAdmitted); c.Status != metav1.ConditionTrue {
				t.Errorf("labelled: Admitted = %+v", c)
			}
			continue
		}
		if c := cond(t, db, pgv1.ConditionClusterReady); c.Reason != pgv1.ReasonNamespaceNotAdmitted || !strings.Contains(c.Message, `tenants.namespaceSelector "tenant=true"`) {
			t.Errorf("unlabelled: ClusterReady = %+v", c)
		}
	}
}
