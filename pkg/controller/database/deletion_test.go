package database

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// readyFixture drives a PostgresDatabase to Ready and returns the fixture.
func readyFixture(t *testing.T, db *pgv1.PostgresDatabase) *fixture {
	t.Helper()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	converge(t, f, db.Name)
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
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", DeletionPolicy: pgv1.DeletionPolicyRetain}))
	admin := f.role("pg.orders-admin")
	f.startDeletion("shop")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if db := f.db("shop"); slices.Contains(db.Finalizers, Finalizer) {
		t.Error("finalizer kept")
	}
	// The DatabaseRoles go with reclaim retain (they had it already: no
	// apply), deleted as the objects judged ours; CNPG keeps the roles.
	if w := f.allWrites(); count(w, "delete databaseroles") != 2 || count(w, "patch databaseroles") != 0 {
		t.Errorf("writes = %v, want the two DatabaseRoles deleted, not applied", w)
	}
	if uid := deletesOf(f.pg.Actions(), "databaseroles")["pg.orders-admin"]; uid != admin.UID {
		t.Errorf("DatabaseRole deleted with UID precondition %q, want %q", uid, admin.UID)
	}
	for _, obj := range []string{"pg.orders-admin", "pg.orders-rw"} {
		if r := f.role(obj); r.DeletionTimestamp == nil || r.Spec.DatabaseRoleReclaimPolicy != cnpgv1.DatabaseRoleReclaimRetain {
			t.Errorf("DatabaseRole %s = %+v, want deleted with reclaim retain", obj, r.Spec)
		}
	}
	f.applyRoles() // CNPG lets them go
	for _, role := range []string{"orders_admin", "orders_rw"} {
		if c, ok := f.sql.role(role); !ok || c != ownership.PostgresMarker(ns, "shop") {
			t.Errorf("role %s in Postgres: %v %q, want kept with our marker", role, ok, c)
		}
	}
	// Released whole: no owner, the retained marks, the rest as it was.
	for _, role := range []string{"orders_admin", "orders_rw"} {
		s := released(shopSecret(role))
		f.expectStored(s, f.secret(s.Name), randomPassword)
	}
	cm, _ := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
	retained := released(shopConfigMap("orders"))
	retained.Annotations["postgres.setpoint.dev/deletion-policy"] = "Retain"
	f.expectStored(retained, cm)
	f.expectStored(releasedDatabase(), f.cnpgDB("shop-orders"))
	if slices.Contains(f.allWrites(), "delete databases") {
		t.Error("Retain deleted the CNPG Database")
	}
	if len(f.sql.execs) != 1 {
		t.Errorf("Retain ran SQL: %+v", f.sql.execs[1:])
	}
}

// A Retain whose DatabaseRoles still say reclaim delete (written so by a
// release that kept a Delete policy's roles at reclaim delete while they
// lived) sets reclaim retain first, then deletes them: CNPG's finalizer
// reads the policy of the object it holds.
func TestDeleteRetainSetsReclaimRetainFirst(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}))
	f.setReclaim("pg.orders-admin", cnpgv1.DatabaseRoleReclaimDelete)
	f.setReclaim("pg.orders-rw", cnpgv1.DatabaseRoleReclaimDelete)
	f.setSpec("shop", func(d *pgv1.DatabaseSpec) { d.DeletionPolicy = pgv1.DeletionPolicyRetain })
	f.startDeletion("shop")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); count(w, "delete databaseroles") != 0 {
		t.Errorf("writes = %v, want nothing deleted before the reclaim policy is retain", w)
	}
	// The reclaim policy of both roles applied, the rest of ours as before.
	f.expectSent("patch", "databaseroles", "pg.orders-admin", shopRoleApply("orders_admin", cnpgv1.DatabaseRoleReclaimRetain))
	f.expectSent("patch", "databaseroles", "pg.orders-rw", shopRoleApply("orders_rw", cnpgv1.DatabaseRoleReclaimRetain))
	if r := f.role("pg.orders-admin"); r.DeletionTimestamp != nil {
		t.Errorf("DatabaseRole deleted with the policy still to apply: %+v", r.ObjectMeta)
	}
	if got := f.db("shop"); !slices.Contains(got.Finalizers, Finalizer) || got.Status.Phase != pgv1.PhaseDeleting {
		t.Fatalf("finalizers %v phase %s, want the deletion waiting", got.Finalizers, got.Status.Phase)
	}
	// One role at a time: the admin role deleted and the rw role's policy
	// applied, then the rw role deleted and everything else released.
	for range 2 {
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
	}
	if slices.Contains(f.db("shop").Finalizers, Finalizer) {
		t.Fatalf("finalizer kept: %+v", f.db("shop").Status)
	}
	f.applyRoles()
	if f.hasRole("pg.orders-admin") || f.hasRole("pg.orders-rw") {
		t.Error("DatabaseRoles kept")
	}
	if _, ok := f.sql.role("orders_admin"); !ok {
		t.Error("Retain dropped the role")
	}
}

func TestDeleteDropsDatabaseThenRolesThenFinalizer(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := readyFixture(t, db)
	f.startDeletion("shop")
	d := f.cnpgDB("shop-orders")
	d.UID = "uid-cnpg-orders"
	if _, err := f.pg.CNPGV1().Databases(ns).Update(t.Context(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// 1: the CNPG Database is deleted; the roles stay meanwhile (one owns
	// the database).
	res, err := f.sync("shop")
	if err != nil || res.RequeueAfter == 0 {
		t.Fatalf("res %+v err %v", res, err)
	}
	if w := f.allWrites(); !slices.Contains(w, "delete databases") || count(w, "delete databaseroles") != 0 {
		t.Fatalf("writes = %v", w)
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

	// 2: the database is gone; the DatabaseRoles, reclaim retain while
	// the database lived, get reclaim delete, and CNPG applies it.
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); count(w, "delete databaseroles") != 0 {
		t.Fatalf("writes = %v, want both reclaim policies set to delete first", w)
	}
	f.expectSent("patch", "databaseroles", "pg.orders-admin", shopRoleApply("orders_admin", cnpgv1.DatabaseRoleReclaimDelete))
	f.expectSent("patch", "databaseroles", "pg.orders-rw", shopRoleApply("orders_rw", cnpgv1.DatabaseRoleReclaimDelete))
	f.applyRoles()

	// 3: the DatabaseRoles (reclaim delete, applied) are deleted and the
	// roles listed absent.
	f.events()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); count(w, "delete databaseroles") != 2 || count(w, "patch databaseroles") != 0 {
		t.Errorf("writes = %v, want both DatabaseRoles deleted", w)
	}
	got = f.db("shop")
	if r := got.Status.Databases[0].Roles; len(r) != 2 || r[0].Ensure != pgv1.RoleEnsureAbsent || r[1].Ensure != pgv1.RoleEnsureAbsent {
		t.Fatalf("roles = %+v", r)
	}
	if c := cond(t, got, pgv1.ConditionReady); !slices.Contains(got.Finalizers, Finalizer) || c.Reason != "RoleCleanupPending" {
		t.Fatalf("finalizers %v Ready %+v, want the finalizer kept while CNPG drops the roles", got.Finalizers, c)
	}
	if ev := f.events(); !slices.Contains(ev, "Normal RoleDeleting Deleted DatabaseRole pg.orders-admin; CloudNativePG drops role orders_admin") {
		t.Errorf("events = %q", ev)
	}

	// 4: CNPG has not acted yet: nothing is written again.
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); len(w) != 0 {
		t.Errorf("a pass while CNPG drops the roles wrote %v", w)
	}

	// 5: CNPG let the objects go, but Postgres still has orders_rw with our
	// marker: it gets a DatabaseRole again, to be dropped with it.
	f.applyRoles()
	f.sql.setRole("orders_rw", ownership.PostgresMarker(ns, "shop"))
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	got = f.db("shop")
	c := cond(t, got, pgv1.ConditionReady)
	if !slices.Contains(got.Finalizers, Finalizer) || !strings.Contains(c.Message, "role orders_rw is still in Postgres") {
		t.Fatalf("finalizers %v Ready %+v", got.Finalizers, c)
	}
	if f.hasRole("pg.orders-admin") {
		t.Error("a DatabaseRole for the role that is gone")
	}
	// Ours with reclaim delete and no password: CNPG leaves the role's as
	// it is.
	again := shopRole("orders_rw")
	again.Spec.DatabaseRoleReclaimPolicy, again.Spec.PasswordSecret = cnpgv1.DatabaseRoleReclaimDelete, nil
	f.expectStored(again, f.role("pg.orders-rw"))

	// 6: CNPG applies it; it is deleted; CNPG drops the role.
	f.applyRoles()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if r := f.role("pg.orders-rw"); r.DeletionTimestamp == nil {
		t.Fatal("the DatabaseRole of the role left over is not deleted")
	}
	f.applyRoles()
	if _, ok := f.sql.role("orders_rw"); ok {
		t.Fatal("CNPG did not drop the role")
	}

	// 7: Postgres no longer has our roles; the finalizer goes.
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if got = f.db("shop"); slices.Contains(got.Finalizers, Finalizer) {
		t.Errorf("finalizer kept: %+v", got.Status)
	}
	for _, s := range []string{"shop-orders-admin", "shop-orders-rw"} {
		if _, err := f.kube.CoreV1().Secrets(ns).Get(t.Context(), s, metav1.GetOptions{}); !f.gone(err) {
			t.Errorf("Secret %s kept: %v", s, err)
		}
	}
}

// A Delete whose DatabaseRoles still say reclaim retain (the policy
// changed with the deletion) applies reclaim delete and waits until
// CloudNativePG applied that generation: CNPG drops only what its object
// says at the time.
func TestDeleteSetsReclaimDeleteAndWaitsUntilApplied(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", DeletionPolicy: pgv1.DeletionPolicyRetain}))
	f.setSpec("shop", func(d *pgv1.DatabaseSpec) { d.DeletionPolicy = pgv1.DeletionPolicyDelete })
	f.startDeletion("shop")
	if _, err := f.sync("shop"); err != nil { // the CNPG Database
		t.Fatal(err)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); count(w, "delete databaseroles") != 0 {
		t.Fatalf("writes = %v, want both reclaim policies applied, nothing deleted", w)
	}
	f.expectSent("patch", "databaseroles", "pg.orders-admin", shopRoleApply("orders_admin", cnpgv1.DatabaseRoleReclaimDelete))
	f.expectSent("patch", "databaseroles", "pg.orders-rw", shopRoleApply("orders_rw", cnpgv1.DatabaseRoleReclaimDelete))
	if r := f.role("pg.orders-admin"); roleApplied(r) {
		t.Fatalf("DatabaseRole status %+v, want reclaim delete not yet applied", r.Status)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); slices.ContainsFunc(w, func(w string) bool { return strings.HasSuffix(w, " databaseroles") }) {
		t.Errorf("DatabaseRoles written before CNPG applied the reclaim policy: %v", w)
	}
	if c := cond(t, f.db("shop"), pgv1.ConditionReady); !strings.Contains(c.Message, `waiting for CloudNativePG to apply DatabaseRole "pg.orders-admin" before it drops role orders_admin`) {
		t.Errorf("Ready = %+v", c)
	}
	f.applyRoles()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); count(w, "delete databaseroles") != 2 {
		t.Fatalf("writes = %v, want both DatabaseRoles deleted once applied", w)
	}
	f.applyRoles()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(f.db("shop").Finalizers, Finalizer) {
		t.Errorf("finalizer kept: %+v", f.db("shop").Status)
	}
	if _, ok := f.sql.role("orders_admin"); ok {
		t.Error("role orders_admin not dropped")
	}
}

// A role Postgres has without our marker once our DatabaseRole is gone
// (someone made it again by hand) is not ours to drop: the deletion ends.
func TestDeleteLeavesARoleThatIsNotOurs(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}))
	f.startDeletion("shop")
	f.toRolesDeleted("shop")
	f.sql.setRole("orders_rw", "made by hand")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(f.db("shop").Finalizers, Finalizer) {
		t.Errorf("finalizer kept: %+v", f.db("shop").Status)
	}
	if f.hasRole("pg.orders-rw") {
		t.Error("a DatabaseRole for a role that is not ours")
	}
	if c, _ := f.sql.role("orders_rw"); c != "made by hand" {
		t.Errorf("the role's comment is %q", c)
	}
}

func TestDeleteBlockedByCNPGIsReported(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := readyFixture(t, db)
	f.startDeletion("shop")
	f.toReclaimDelete("shop")
	if _, err := f.sync("shop"); err != nil { // delete the DatabaseRoles
		t.Fatal(err)
	}
	f.failRole("pg.orders-admin", `role "orders_admin" cannot be dropped because some objects depend on it`)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	c := cond(t, f.db("shop"), pgv1.ConditionReady)
	if c.Reason != "RoleCleanupBlocked" || !strings.Contains(c.Message, "CloudNativePG cannot remove role orders_admin: role \"orders_admin\" cannot be dropped") {
		t.Errorf("Ready = %+v", c)
	}
}

func TestDeleteWithClusterGoneDoesNotBlock(t *testing.T) {
	t.Parallel()
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
	// deleting it later), the Secrets stay for the roles that use them, and
	// the DatabaseRoles, reclaim retain while the database lived, keep it
	// as they go: a retained CNPG Cluster still serving the roles must not
	// drop them.
	if w := f.allWrites(); slices.Contains(w, "delete databases") || slices.Contains(w, "delete secrets") ||
		slices.Contains(w, "patch databaseroles") {
		t.Errorf("deleted, or a reclaim policy changed, with the cluster gone: %v", w)
	}
	for _, name := range []string{"pg.orders-admin", "pg.orders-rw"} {
		if r := f.role(name); r.Spec.DatabaseRoleReclaimPolicy != cnpgv1.DatabaseRoleReclaimRetain {
			t.Errorf("DatabaseRole %s with the cluster gone: reclaim %q; want reclaim retain", name, r.Spec.DatabaseRoleReclaimPolicy)
		}
	}
	f.applyRoles()
	if _, ok := f.sql.role("orders_admin"); !ok {
		t.Error("role orders_admin dropped with the cluster gone")
	}
	// Kept, whole, as a Retain deletion keeps them.
	f.expectStored(releasedDatabase(), f.cnpgDB("shop-orders"))
	f.expectStored(released(shopSecret("orders_rw")), f.secret("shop-orders-rw"), randomPassword)
}

// A database removed from the spec follows its policy while the object
// lives on: here Delete, remembered by its ConfigMap.
func TestRemovedDatabaseIsCleanedUp(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}, pgv1.DatabaseSpec{Name: "legacy"})
	f := readyFixture(t, db)
	cur := f.db("shop")
	cur.Spec.Databases = cur.Spec.Databases[:1]
	cur.Generation = 2
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.toReclaimDelete("shop")
	if _, err := f.sync("shop"); err != nil { // delete the DatabaseRoles
		t.Fatal(err)
	}
	for _, obj := range []string{"pg.legacy-admin", "pg.legacy-rw"} {
		if r := f.role(obj); r.DeletionTimestamp == nil {
			t.Errorf("DatabaseRole %s not deleted", obj)
		}
	}
	f.applyRoles() // CNPG drops the roles
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
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
	if r := f.role("pg.orders-admin"); r.DeletionTimestamp != nil || !roleApplied(r) {
		t.Errorf("the kept database's DatabaseRole = %+v", r)
	}
	if _, ok := f.sql.role("legacy_admin"); ok {
		t.Error("role legacy_admin not dropped")
	}
}

// A database drop that CNPG does not finish escalates like role cleanup,
// and names the cluster's own trouble.
func TestDatabaseDropWaitEscalates(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}))
	cd := f.cnpgDB("shop-orders")
	long := metav1.NewTime(f.clock.Now().Add(-3 * blockedAfter))
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

// deletesOf are the deletes of resource among actions, each object's name
// with the UID precondition it carried.
func deletesOf(actions []k8stesting.Action, resource string) map[string]types.UID {
	out := map[string]types.UID{}
	for _, a := range actions {
		if d, ok := a.(k8stesting.DeleteAction); ok && a.GetResource().Resource == resource {
			var uid types.UID
			if p := d.GetDeleteOptions().Preconditions; p != nil && p.UID != nil {
				uid = *p.UID
			}
			out[d.GetName()] = uid
		}
	}
	return out
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

// A PostgresDatabase of the same name on the same cluster adopts the
// Secrets a Retain deletion kept, through the claim the cluster's children
// pass too: our controller reference replaces the retained marks, and an
// Event says so.
func TestRetainedSecretsAreAdoptedByTheNextObjectOfTheName(t *testing.T) {
	t.Parallel()
	spec := pgv1.DatabaseSpec{Name: "orders", DeletionPolicy: pgv1.DeletionPolicyRetain}
	f := readyFixture(t, newDatabase("shop", spec))
	f.startDeletion("shop")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Delete(t.Context(), "shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	next := newDatabase("shop", spec)
	next.UID = "uid-shop-again"
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), next, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.events()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	// Adopted by the new object, the retained marks gone, the rest as it
	// was.
	for _, role := range []string{"orders_admin", "orders_rw"} {
		want := shopSecret(role)
		want.OwnerReferences[0].UID = next.UID
		f.expectStored(want, f.secret(want.Name), randomPassword)
	}
	if ev := f.events(); countPrefix(ev, "Normal SecretAdopted Adopted retained Secret") != 2 {
		t.Errorf("events %v, want one SecretAdopted per Secret", ev)
	}
}

func countPrefix(ss []string, prefix string) int {
	n := 0
	for _, s := range ss {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// toReclaimDelete runs a Delete's first passes: the CNPG Database is
// deleted, then the DatabaseRoles get reclaim delete, which CNPG applies.
func (f *fixture) toReclaimDelete(name string) {
	f.t.Helper()
	for range 2 {
		if _, err := f.sync(name); err != nil {
			f.t.Fatal(err)
		}
	}
	f.applyRoles()
}

// toRolesDeleted runs a Delete until CNPG let its DatabaseRoles go.
func (f *fixture) toRolesDeleted(name string) {
	f.t.Helper()
	f.toReclaimDelete(name)
	if _, err := f.sync(name); err != nil {
		f.t.Fatal(err)
	}
	f.applyRoles()
}

// setReclaim stores DatabaseRole obj with reclaim policy policy, applied
// by CNPG, as an earlier release wrote it.
func (f *fixture) setReclaim(obj, policy string) {
	f.t.Helper()
	r := f.role(obj)
	r.Spec.DatabaseRoleReclaimPolicy = policy
	if _, err := f.pg.CNPGV1().DatabaseRoles(ns).Update(f.t.Context(), r, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}
