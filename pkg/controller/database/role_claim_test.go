package database

import (
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// roleWrites are the writes of the last pass to DatabaseRoles, by name.
func roleWrites(f *fixture) []string {
	var out []string
	for _, a := range f.pg.Actions() {
		if a.GetResource().Resource != "databaseroles" || a.GetVerb() == "get" || a.GetVerb() == "list" {
			continue
		}
		name := ""
		switch a := a.(type) {
		case interface{ GetName() string }:
			name = a.GetName()
		case k8stesting.CreateAction:
			if o, ok := a.GetObject().(metav1.Object); ok {
				name = o.GetName()
			}
		}
		out = append(out, a.GetVerb()+" "+name)
	}
	return out
}

// refused runs a pass of "shop" and checks that it is Failed with reason
// in RolesReady, saying want, and wrote no DatabaseRole of role admin.
func refused(t *testing.T, f *fixture, reason, want string) {
	t.Helper()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	db := f.db("shop")
	c := cond(t, db, pgv1.ConditionRolesReady)
	if db.Status.Phase != pgv1.PhaseFailed || c.Reason != reason || !strings.Contains(db.Status.Databases[0].Message, want) {
		t.Errorf("phase %s RolesReady %+v entry %q; want Failed %s saying %q", db.Status.Phase, c, db.Status.Databases[0].Message, reason, want)
	}
	if w := roleWrites(f); slices.ContainsFunc(w, func(w string) bool { return strings.HasSuffix(w, " pg.orders-admin") }) {
		t.Errorf("wrote the refused role's DatabaseRole: %v", w)
	}
	if _, err := f.pg.CNPGV1().Databases(ns).Get(t.Context(), "shop-orders", metav1.GetOptions{}); err == nil {
		t.Error("CNPG Database applied for a refused role")
	}
}

func shopFixture(t *testing.T, pgObjs ...runtime.Object) *fixture {
	t.Helper()
	return newFixture(t, clusterSecrets(), append([]runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})}, pgObjs...))
}

// A DatabaseRole of the name ours would have that setpoint did not create
// for this object is never adopted (it may name anyone's Secret and reclaim
// policy) nor written; one a previous object of this name controlled goes
// with that object.
func TestForeignDatabaseRoleOfOurNameIsRefused(t *testing.T) {
	t.Parallel()
	f := shopFixture(t, foreignRole("pg.orders-admin", "orders_admin", nil))
	refused(t, f, "RoleConflict", `DatabaseRole "pg.orders-admin" exists and was not created by setpoint for this object (not managed by setpoint)`)
	f.expectStored(foreignRole("pg.orders-admin", "orders_admin", nil), f.role("pg.orders-admin")) // unchanged

	previous := &metav1.OwnerReference{APIVersion: pgv1.SchemeGroupVersion.String(), Kind: "PostgresDatabase",
		Name: "shop", UID: "uid-shop-before", Controller: ptr.To(true)}
	f = shopFixture(t, foreignRole("pg.orders-admin", "orders_admin", previous))
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if db := f.db("shop"); db.Status.Phase == pgv1.PhaseFailed || !strings.Contains(db.Status.Databases[0].Message, "a previous object of this name") {
		t.Errorf("phase %s entry %q, want a wait for the garbage collector", db.Status.Phase, db.Status.Databases[0].Message)
	}
	if w := roleWrites(f); slices.Contains(w, "patch pg.orders-admin") {
		t.Errorf("wrote the previous object's DatabaseRole: %v", w)
	}
}

// Another DatabaseRole that manages the same role on the same cluster
// (CNPG would let the two fight) is a conflict; one on another cluster is
// not.
func TestAnotherDatabaseRoleOfTheRoleIsRefused(t *testing.T) {
	t.Parallel()
	f := shopFixture(t, foreignRole("manual-orders-admin", "orders_admin", nil))
	refused(t, f, "RoleConflict", `role orders_admin is managed by DatabaseRole "manual-orders-admin"`)
	if f.hasRole("pg.orders-admin") {
		t.Error("a second DatabaseRole of the role was created")
	}

	elsewhere := foreignRole("other.orders-admin", "orders_admin", nil)
	elsewhere.Spec.Cluster.Name = "other"
	f = shopFixture(t, elsewhere)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if !f.hasRole("pg.orders-admin") || f.db("shop").Status.Phase == pgv1.PhaseFailed {
		t.Errorf("the role on another cluster held ours back: %+v", f.db("shop").Status)
	}
}

// The CNPG Cluster's spec.managed.roles takes precedence over DatabaseRoles:
// a role listed there for anyone else is left alone. The CNPG Cluster that
// counts is the one the PostgresCluster controls.
func TestManagedRolesEntryOfSomeoneElseIsRefused(t *testing.T) {
	t.Parallel()
	for name, comment := range map[string]string{
		"by hand":            "the shop's admin",
		"for another object": ownership.PostgresMarker(ns, "other"),
	} {
		t.Run(name, func(t *testing.T) {
			f := shopFixture(t)
			f.setManagedRoles(cnpgv1.RoleConfiguration{Name: "orders_admin", Comment: comment})
			refused(t, f, "RoleConflict", `role orders_admin is listed in CNPG Cluster "pg"'s spec.managed.roles`)
		})
	}
	t.Run("a namesake CNPG Cluster", func(t *testing.T) {
		f := shopFixture(t)
		f.setManagedRoles(cnpgv1.RoleConfiguration{Name: "orders_admin"})
		cc, err := f.pg.CNPGV1().Clusters(ns).Get(t.Context(), "pg", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cc.OwnerReferences = nil
		if _, err := f.pg.CNPGV1().Clusters(ns).Update(t.Context(), cc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		if !f.hasRole("pg.orders-admin") {
			t.Errorf("a CNPG Cluster the PostgresCluster does not control held the role back: %+v", f.db("shop").Status)
		}
	})
}

// A role an earlier setpoint kept in managed.roles for this object (our
// marker) is ours: the pass waits, writing nothing for it, until the
// cluster controller has moved it out, then applies its DatabaseRole.
func TestOwnManagedRolesEntryWaitsForTheMove(t *testing.T) {
	t.Parallel()
	f := shopFixture(t)
	marker := ownership.PostgresMarker(ns, "shop")
	f.setManagedRoles(cnpgv1.RoleConfiguration{Name: "orders_admin", Comment: marker})
	f.sql.setRole("orders_admin", marker) // what the earlier setpoint made
	res, err := f.sync("shop")
	if err != nil || res.RequeueAfter != provisionRecheck {
		t.Fatalf("res %+v err %v", res, err)
	}
	db := f.db("shop")
	if db.Status.Phase != pgv1.PhaseProvisioning || cond(t, db, pgv1.ConditionRolesReady).Reason != "RolesMigrating" ||
		!strings.Contains(db.Status.Databases[0].Message, `waiting for PostgresCluster "pg" to move role orders_admin`) {
		t.Errorf("phase %s RolesReady %+v entry %q", db.Status.Phase, cond(t, db, pgv1.ConditionRolesReady), db.Status.Databases[0].Message)
	}
	if f.hasRole("pg.orders-admin") {
		t.Error("DatabaseRole written while managed.roles has the role")
	}
	f.setManagedRoles() // moved out
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.expectStored(shopRole("orders_admin"), f.role("pg.orders-admin"))
}

// A role Postgres has without this object's marker is not taken over:
// CNPG would set its password, and drop it with a Delete policy.
func TestRoleInPostgresWithoutOurMarkerIsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ comment, want string }{
		{"", "role orders_admin exists in Postgres and was not created by setpoint"},
		{"the shop's admin", "role orders_admin exists in Postgres and was not created by setpoint"},
		{ownership.PostgresMarker(ns, "other"), "role orders_admin exists in Postgres and was created by setpoint for PostgresDatabase " + ns + "/other"},
	} {
		f := shopFixture(t)
		f.sql.setRole("orders_admin", tc.comment)
		refused(t, f, "RoleExists", tc.want)
		if c, _ := f.sql.role("orders_admin"); c != tc.comment {
			t.Errorf("role comment now %q", c)
		}
	}
}

// When Postgres cannot be asked, nothing is written: the claim is a wait
// (the server restarting, failing over), not a failure.
func TestUnverifiableRoleIsAWait(t *testing.T) {
	t.Parallel()
	f := shopFixture(t)
	f.sql.err = errString("connection refused")
	res, err := f.sync("shop")
	if err != nil || res.RequeueAfter != sqlRecheck {
		t.Fatalf("res %+v err %v", res, err)
	}
	db := f.db("shop")
	if c := cond(t, db, pgv1.ConditionRolesReady); db.Status.Phase != pgv1.PhaseProvisioning || c.Reason != "RoleUnverified" ||
		!strings.Contains(db.Status.Databases[0].Message, "cannot check in Postgres whether role orders_admin already exists: connection refused") {
		t.Errorf("phase %s RolesReady %+v entry %q", db.Status.Phase, c, db.Status.Databases[0].Message)
	}
	if w := roleWrites(f); len(w) != 0 {
		t.Errorf("DatabaseRoles written unverified: %v", w)
	}

	// Without the cluster's Secret to log in with it cannot be asked either.
	f = newFixture(t, nil, []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	db = f.db("shop")
	if c := cond(t, db, pgv1.ConditionRolesReady); db.Status.Phase != pgv1.PhaseProvisioning || c.Status != metav1.ConditionFalse ||
		!strings.Contains(c.Message, `Secret "pg-superuser" not found`) || len(roleWrites(f)) != 0 {
		t.Errorf("phase %s RolesReady %+v writes %v, want a wait naming the missing Secret, nothing written", db.Status.Phase, c, roleWrites(f))
	}
}

// Two PostgresDatabases on one cluster asking for one role ask for one
// DatabaseRole: the one that has it keeps it and stays Ready, untouched;
// the other is refused, naming it.
func TestSecondObjectAskingForTheRoleIsRefused(t *testing.T) {
	t.Parallel()
	first := newDatabase("first", pgv1.DatabaseSpec{Name: "orders"})
	second := newDatabase("second", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), first, second})
	converge(t, f, "first")
	admin := f.role("pg.orders-admin")

	if _, err := f.sync("second"); err != nil {
		t.Fatal(err)
	}
	got := f.db("second")
	c := cond(t, got, pgv1.ConditionRolesReady)
	if got.Status.Phase != pgv1.PhaseFailed || c.Reason != "RoleConflict" ||
		!strings.Contains(got.Status.Databases[0].Message, `DatabaseRole "pg.orders-admin" exists and was not created by setpoint for this object (controlled by PostgresDatabase "first", UID uid-first)`) {
		t.Errorf("second: phase %s RolesReady %+v entry %q", got.Status.Phase, c, got.Status.Databases[0].Message)
	}
	if w := roleWrites(f); len(w) != 0 {
		t.Errorf("the second object wrote DatabaseRoles: %v", w)
	}
	if r := f.role("pg.orders-admin"); r.ResourceVersion != admin.ResourceVersion || !ownership.IsControlledBy(r, first.UID) {
		t.Errorf("the first object's DatabaseRole changed: %+v", r.ObjectMeta)
	}

	if _, err := f.sync("first"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); len(w) != 0 {
		t.Errorf("the first object's pass wrote %v", w)
	}
	if db := f.db("first"); db.Status.Phase != pgv1.PhaseReady {
		t.Errorf("first: phase %s", db.Status.Phase)
	}
}

// A Retain deletion leaves the roles in Postgres with this object's
// marker; a later PostgresDatabase of the same name on the same cluster
// takes them back — its DatabaseRoles, the retained Secrets and passwords.
func TestRetainedRolesAreTakenBackByTheNextObjectOfTheName(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", DeletionPolicy: pgv1.DeletionPolicyRetain}))
	before := f.passwords("shop-orders-admin", "shop-orders-rw")
	f.startDeletion("shop")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.applyRoles() // CNPG lets the DatabaseRoles go and keeps the roles
	if err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Delete(t.Context(), "shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if f.hasRole("pg.orders-admin") || f.hasRole("pg.orders-rw") {
		t.Fatal("DatabaseRoles kept")
	}

	again := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", DeletionPolicy: pgv1.DeletionPolicyRetain})
	again.UID = "uid-shop-again"
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), again, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	converge(t, f, "shop")
	for _, role := range []string{"orders_admin", "orders_rw"} {
		want := appliedRole(shopRole(role)) // the new object's, with shop's marker
		want.OwnerReferences[0].UID = again.UID
		f.expectStored(want, f.role(want.Name))
	}
	if after := f.passwords("shop-orders-admin", "shop-orders-rw"); !mapsEqual(after, before) {
		t.Error("the retained passwords were not taken back")
	}
}

// spec.adoptFrom takes over the roles setpoint marked for the object it
// names, once that object no longer uses the cluster: the DatabaseRoles
// give them this object's marker and Secrets. Anything else stays refused.
func TestAdoptFromTakesTheSourcesRoles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), adopting("copy-app", "app")})
	for _, r := range []string{"orders_admin", "orders_rw"} {
		f.sql.setRole(r, ownership.PostgresMarker(ns, "app"))
	}
	converge(t, f, "copy-app")
	for _, obj := range []string{"pg.orders-admin", "pg.orders-rw"} {
		r := f.role(obj)
		if !ownership.IsControlledBy(r, "uid-copy-app") || r.Spec.Comment != ownership.PostgresMarker(ns, "copy-app") ||
			!strings.HasPrefix(r.Spec.PasswordSecret.Name, "copy-app-orders-") {
			t.Errorf("DatabaseRole %s = %+v %+v", obj, r.OwnerReferences, r.Spec)
		}
	}
	if c, _ := f.sql.role("orders_admin"); c != ownership.PostgresMarker(ns, "copy-app") {
		t.Errorf("role orders_admin is marked %q, want re-marked for copy-app", c)
	}

	src := newDatabase("app", pgv1.DatabaseSpec{Name: "billing"})
	for name, tc := range map[string]struct {
		comment string
		others  []runtime.Object
		want    string
	}{
		"the source still on this cluster": {ownership.PostgresMarker(ns, "app"), []runtime.Object{src},
			`spec.adoptFrom cannot take it over while PostgresDatabase "app" uses this cluster`},
		"another object's marker": {ownership.PostgresMarker(ns, "other"), nil,
			"spec.adoptFrom takes over only what setpoint marked for PostgresDatabase " + ns + "/app"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, clusterSecrets(), append([]runtime.Object{readyCluster(), adopting("copy-app", "app")}, tc.others...))
			f.sql.setRole("orders_admin", tc.comment)
			if _, err := f.sync("copy-app"); err != nil {
				t.Fatal(err)
			}
			db := f.db("copy-app")
			if c := cond(t, db, pgv1.ConditionRolesReady); db.Status.Phase != pgv1.PhaseFailed || c.Reason != "RoleExists" ||
				!strings.Contains(db.Status.Databases[0].Message, tc.want) {
				t.Errorf("phase %s RolesReady %+v entry %q", db.Status.Phase, c, db.Status.Databases[0].Message)
			}
			if f.hasRole("pg.orders-admin") {
				t.Error("DatabaseRole written for a refused role")
			}
		})
	}
}

// Two PostgresDatabases racing for one role, the second's cache not yet
// showing the first's new DatabaseRole: the first write is a create, which
// the API server refuses, and the object it has is judged — never taken
// over by a forced apply.
func TestRoleCreateLostToAnUnseenObjectIsAConflict(t *testing.T) {
	t.Parallel()
	f := shopFixture(t)
	first := &metav1.OwnerReference{APIVersion: pgv1.SchemeGroupVersion.String(), Kind: "PostgresDatabase",
		Name: "first", UID: "uid-first", Controller: ptr.To(true)}
	raced := false
	f.pg.PrependReactor("create", "databaseroles", func(a k8stesting.Action) (bool, runtime.Object, error) {
		obj, ok := a.(k8stesting.CreateAction).GetObject().(*cnpgv1.DatabaseRole)
		if !ok || obj.Name != "pg.orders-admin" || raced {
			return false, nil, nil
		}
		raced = true // the other object gets there first, after our cache was read
		if err := f.pg.Tracker().Add(foreignRole("pg.orders-admin", "orders_admin", first)); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewAlreadyExists(cnpgv1.SchemeGroupVersion.WithResource("databaseroles").GroupResource(), obj.Name)
	})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	db := f.db("shop")
	want := `DatabaseRole "pg.orders-admin" exists and was not created by setpoint for this object (controlled by PostgresDatabase "first"`
	if c := cond(t, db, pgv1.ConditionRolesReady); db.Status.Phase != pgv1.PhaseFailed || c.Reason != "RoleConflict" || !strings.Contains(db.Status.Databases[0].Message, want) {
		t.Errorf("phase %s RolesReady %+v entry %q; want Failed RoleConflict saying %q", db.Status.Phase, c, db.Status.Databases[0].Message, want)
	}
	if w := roleWrites(f); slices.Contains(w, "patch pg.orders-admin") {
		t.Errorf("applied over the DatabaseRole that won the race: %v", w)
	}
	if !raced {
		t.Fatal("no create of pg.orders-admin reached the API server")
	}
	r := f.role("pg.orders-admin")
	if ref := metav1.GetControllerOf(r); ref == nil || ref.UID != "uid-first" || r.Spec.PasswordSecret.Name != "theirs" {
		t.Errorf("the first object's DatabaseRole changed: %+v %+v", r.ObjectMeta, r.Spec)
	}
}
