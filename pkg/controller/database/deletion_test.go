package database

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// readyFixture drives a PostgresDatabase to Ready and returns the fixture.
func readyFixture(t *testing.T, db *pgv1.PostgresDatabase) *fixture {
	t.Helper()
	pc := readyCluster()
	var roles []string
	for _, d := range db.Spec.Databases {
		roles = append(roles, d.Name+"_admin", d.Name+"_rw")
	}
	ownRoles(db, roles...)(pc)
	f := newFixture(t, clusterSecrets(), []runtime.Object{pc, db})
	if _, err := f.sync(db.Name); err != nil {
		t.Fatal(err)
	}
	for _, d := range db.Spec.Databases {
		f.markApplied(namesOf(db.Name, d.Name).CNPG, true, "")
	}
	if _, err := f.sync(db.Name); err != nil {
		t.Fatal(err)
	}
	if got := f.db(db.Name); got.Status.Phase != pgv1.PhaseReady {
		t.Fatalf("not Ready: %+v", got.Status)
	}
	f.events()
	return f
}

// startDeletion marks the object deleted, as the API server does while a
// finalizer holds it.
func (f *fixture) startDeletion(name string) {
	f.t.Helper()
	db := f.db(name)
	now := metav1.Now()
	db.DeletionTimestamp = &now
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(f.t.Context(), db, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) gone(err error) bool { return apierrors.IsNotFound(err) }

func TestDeleteRetainReleasesForAdoption(t *testing.T) {
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", DeletionPolicy: pgv1.DeletionPolicyRetain}))
	f.startDeletion("shop")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if db := f.db("shop"); slices.Contains(db.Finalizers, Finalizer) {
		t.Error("finalizer kept")
	}
	for _, name := range []string{"shop-orders-admin", "shop-orders-rw"} {
		s := f.secret(name)
		if len(s.OwnerReferences) != 0 || s.Labels[controller.RetainedLabel] != "true" || s.Labels[controller.DatabaseLabel] != "shop" {
			t.Errorf("secret %s not released: %+v", name, s.ObjectMeta)
		}
	}
	cm, _ := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
	if len(cm.OwnerReferences) != 0 || cm.Labels[controller.RetainedLabel] != "true" || cm.Data["database"] != "orders" {
		t.Errorf("configmap not released: %+v", cm.ObjectMeta)
	}
	cd := f.cnpgDB("shop-orders")
	if len(cd.OwnerReferences) != 0 || cd.Labels[controller.RetainedLabel] != "true" || cd.Spec.Name != "orders" || cd.Spec.DatabaseReclaimPolicy != "retain" {
		t.Errorf("CNPG Database not released: %+v %+v", cd.ObjectMeta, cd.Spec)
	}
	if slices.Contains(f.allWrites(), "delete databases") {
		t.Error("Retain deleted the CNPG Database")
	}
}

func TestDeleteDropsDatabaseThenRolesThenFinalizer(t *testing.T) {
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := readyFixture(t, db)
	f.startDeletion("shop")
	d := f.cnpgDB("shop-orders")
	d.UID = "uid-cnpg-orders"
	if _, err := f.pg.CNPGV1().Databases(ns).Update(t.Context(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// 1: the CNPG Database is deleted; the roles stay present meanwhile.
	res, err := f.sync("shop")
	if err != nil || res.RequeueAfter == 0 {
		t.Fatalf("res %+v err %v", res, err)
	}
	if !slices.Contains(f.allWrites(), "delete databases") {
		t.Fatalf("writes = %v", f.allWrites())
	}
	if uid := deletePrecondition(f.pg.Actions()); uid != "uid-cnpg-orders" {
		t.Errorf("CNPG Database deleted with UID precondition %q, want the UID of the one judged ours", uid)
	}
	if _, err := f.pg.CNPGV1().Databases(ns).Get(t.Context(), "shop-orders", metav1.GetOptions{}); !f.gone(err) {
		t.Fatalf("CNPG Database still there: %v", err)
	}
	got := f.db("shop")
	if got.Status.Phase != pgv1.PhaseDeleting || got.Status.Databases[0].Roles[0].Ensure != pgv1.RoleEnsurePresent {
		t.Errorf("after delete: %+v", got.Status)
	}

	// 2: the database is gone; the roles are published absent.
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	got = f.db("shop")
	if r := got.Status.Databases[0].Roles; len(r) != 2 || r[0].Ensure != pgv1.RoleEnsureAbsent || r[1].Ensure != pgv1.RoleEnsureAbsent {
		t.Fatalf("roles = %+v", r)
	}
	if !slices.Contains(got.Finalizers, Finalizer) {
		t.Fatal("finalizer removed before the roles were dropped")
	}

	// 3: CNPG reconciled the absent roles but Postgres still has one.
	f.sql.existing = []string{"orders_rw"}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	got = f.db("shop")
	c := cond(t, got, pgv1.ConditionReady)
	if !slices.Contains(got.Finalizers, Finalizer) || !strings.Contains(c.Message, "orders_rw") {
		t.Fatalf("blocked state: finalizers %v Ready %+v", got.Finalizers, c)
	}

	// 4: the roles are gone; the finalizer goes.
	f.sql.existing = nil
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if got = f.db("shop"); slices.Contains(got.Finalizers, Finalizer) {
		t.Errorf("finalizer kept: %+v", got.Status)
	}
}

func TestDeleteBlockedByCNPGIsReported(t *testing.T) {
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := readyFixture(t, db)
	f.startDeletion("shop")
	for range 2 { // delete the CNPG Database, then publish absent
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
	}
	pc, err := f.pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "pg", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.setCNPGRoles(pc, []string{"orders_rw"}, map[string]string{"orders_admin": "role owns objects"})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	c := cond(t, f.db("shop"), pgv1.ConditionReady)
	if c.Reason != "RoleCleanupBlocked" || !strings.Contains(c.Message, "role owns objects") {
		t.Errorf("Ready = %+v", c)
	}
}

func TestDeleteWithClusterGoneDoesNotBlock(t *testing.T) {
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := readyFixture(t, db)
	if err := f.pg.PostgresV1alpha1().PostgresClusters(ns).Delete(t.Context(), "pg", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.startDeletion("shop")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(f.db("shop").Finalizers, Finalizer) {
		t.Error("finalizer kept without a cluster")
	}
	if ev := f.events(); !slices.ContainsFunc(ev, func(e string) bool { return strings.HasPrefix(e, "Warning ClusterGone") }) {
		t.Errorf("events = %v", ev)
	}
	// Policy Delete, but without the cluster nothing is dropped: the CNPG
	// Database is kept (reclaim retain, so nobody drops the data by
	// deleting it later) and the Secrets stay for the roles that use them.
	if slices.Contains(f.allWrites(), "delete databases") || slices.Contains(f.allWrites(), "delete secrets") {
		t.Errorf("deleted with the cluster gone: %v", f.allWrites())
	}
	cd := f.cnpgDB("shop-orders")
	if len(cd.OwnerReferences) != 0 || cd.Spec.DatabaseReclaimPolicy != "retain" ||
		cd.Annotations[controller.RetainedForAnnotation] != "PostgresDatabase/shop" || cd.Annotations[controller.RetainedClusterAnnotation] != "pg" {
		t.Errorf("CNPG Database not kept: %+v %+v", cd.ObjectMeta, cd.Spec)
	}
	if s := f.secret("shop-orders-rw"); len(s.OwnerReferences) != 0 || s.Labels[controller.RetainedLabel] != "true" {
		t.Errorf("Secret not kept: %+v", s.ObjectMeta)
	}
}

// A database removed from the spec follows its policy while the object
// lives on: here Delete, remembered by its ConfigMap.
func TestRemovedDatabaseIsCleanedUp(t *testing.T) {
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}, pgv1.DatabaseSpec{Name: "legacy"})
	f := readyFixture(t, db)
	cur := f.db("shop")
	cur.Spec.Databases = cur.Spec.Databases[:1]
	cur.Generation = 2
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for range 3 { // delete the CNPG Database, publish absent roles, verify
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
	}
	got := f.db("shop")
	if len(got.Status.Databases) != 1 || got.Status.Databases[0].Name != "orders" {
		t.Errorf("entries = %+v", got.Status.Databases)
	}
	if got.Status.Phase != pgv1.PhaseReady {
		t.Errorf("phase = %s %+v", got.Status.Phase, got.Status.Conditions)
	}
	if _, err := f.kube.CoreV1().Secrets(ns).Get(t.Context(), "shop-legacy-admin", metav1.GetOptions{}); !f.gone(err) {
		t.Errorf("legacy secret kept: %v", err)
	}
	if _, err := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-legacy-config", metav1.GetOptions{}); !f.gone(err) {
		t.Errorf("legacy configmap kept: %v", err)
	}
	if s := f.secret("shop-orders-admin"); s.Type != corev1.SecretTypeBasicAuth {
		t.Error("kept database lost its secret")
	}
}

// A database drop that CNPG does not finish escalates like role cleanup,
// and names the cluster's own trouble.
func TestDatabaseDropWaitEscalates(t *testing.T) {
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}))
	cd := f.cnpgDB("shop-orders")
	long := metav1.NewTime(time.Now().Add(-3 * blockedAfter))
	cd.DeletionTimestamp = &long // CNPG's finalizer holds it: the drop is not done
	if _, err := f.pg.CNPGV1().Databases(ns).Update(t.Context(), cd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	db := f.db("shop")
	db.DeletionTimestamp = &long
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.setCluster(func(pc *pgv1.PostgresCluster) {
		pc.Status.Phase = pgv1.PhasePending
		pc.Status.Conditions = []metav1.Condition{{Type: pgv1.ConditionReady, Status: metav1.ConditionFalse,
			Reason: "PostgresUnreachable", Message: "connection refused", ObservedGeneration: 1, LastTransitionTime: metav1.Now()}}
	})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	c := cond(t, f.db("shop"), pgv1.ConditionReady)
	if c.Reason != "DatabaseCleanupBlocked" || !strings.Contains(c.Message, "waiting for CloudNativePG to drop database orders") ||
		!strings.Contains(c.Message, `PostgresCluster "pg" is Pending (PostgresUnreachable: connection refused)`) {
		t.Fatalf("Ready = %+v", c)
	}
}

// deletePrecondition is the UID precondition of the first delete among
// actions ("" when there is none).
func deletePrecondition(actions []k8stesting.Action) types.UID {
	for _, a := range actions {
		if d, ok := a.(k8stesting.DeleteAction); ok {
			if p := d.GetDeleteOptions().Preconditions; p != nil && p.UID != nil {
				return *p.UID
			}
			return ""
		}
	}
	return ""
}
