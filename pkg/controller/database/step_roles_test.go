package database

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

func vaultRW() *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "vault-rw", Namespace: ns}, Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("order_items_rw"), "password": []byte("the-users-own")}}
}

// Every role of every database gets a DatabaseRole named after the cluster
// and the role, server-side applied with exactly the fields setpoint owns:
// the cluster, the role, login, our marker as comment, the password Secret
// the secrets step chose (generated or the user's) and the reclaim policy
// retain (whatever the deletionPolicy: see ensureRole), and every
// privilege-bearing attribute at an unprivileged role's value; our labels
// and our controller reference.
func TestDatabaseRolesCarryExactlyOurFields(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop",
		pgv1.DatabaseSpec{Name: "order_items", ReadOnlyRole: true,
			PasswordConfig: &pgv1.DatabasePasswordConfig{RWSecretRef: &pgv1.LocalObjectReference{Name: "vault-rw"}}},
		pgv1.DatabaseSpec{Name: "audit", DeletionPolicy: pgv1.DeletionPolicyRetain})
	f := newFixture(t, append(clusterSecrets(), vaultRW()), []runtime.Object{readyCluster(), db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	marker := ownership.PostgresMarker(ns, "shop")
	want := map[string]cnpgv1.DatabaseRoleSpec{}
	add := func(obj, role, secret, reclaim string) {
		want[obj] = cnpgv1.DatabaseRoleSpec{Cluster: cnpgv1.LocalObjectReference{Name: "pg"}, Name: role, Login: true,
			Comment: marker, PasswordSecret: &cnpgv1.LocalObjectReference{Name: secret}, DatabaseRoleReclaimPolicy: reclaim,
			Inherit: ptr.To(true), ConnectionLimit: ptr.To[int64](-1)}
	}
	add("pg.order-items-admin", "order_items_admin", "shop-order-items-admin", "retain")
	add("pg.order-items-rw", "order_items_rw", "vault-rw", "retain")
	add("pg.order-items-ro", "order_items_ro", "shop-order-items-ro", "retain")
	add("pg.audit-admin", "audit_admin", "shop-audit-admin", "retain")
	add("pg.audit-rw", "audit_rw", "shop-audit-rw", "retain")

	list, err := f.pg.CNPGV1().DatabaseRoles(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != len(want) {
		t.Errorf("%d DatabaseRoles, want %d", len(list.Items), len(want))
	}
	owner := []metav1.OwnerReference{{APIVersion: pgv1.SchemeGroupVersion.String(), Kind: "PostgresDatabase", Name: "shop",
		UID: db.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
	for _, r := range list.Items {
		spec, ok := want[r.Name]
		if !ok {
			t.Errorf("unexpected DatabaseRole %s", r.Name)
			continue
		}
		if !apiequality.Semantic.DeepEqual(r.Spec, spec) {
			t.Errorf("%s spec = %+v, want %+v", r.Name, r.Spec, spec)
		}
		if !maps.Equal(r.Labels, ownership.ManagedLabels(ownership.DatabaseLabel, "shop")) || len(r.Annotations) != 0 {
			t.Errorf("%s labels %v annotations %v", r.Name, r.Labels, r.Annotations)
		}
		if !apiequality.Semantic.DeepEqual(r.OwnerReferences, owner) {
			t.Errorf("%s owner references = %+v", r.Name, r.OwnerReferences)
		}
		wantSpec := []string{"f:cluster", "f:comment", "f:connectionLimit", "f:databaseRoleReclaimPolicy", "f:inherit", "f:login", "f:name", "f:passwordSecret"}
		if got := appliedSpecFields(t, r.ManagedFields); !slices.Equal(got, wantSpec) {
			t.Errorf("%s: %s applies spec fields %v, want %v", r.Name, ownership.FieldManager, got, wantSpec)
		}
	}
	for _, a := range f.pg.Actions() {
		p, ok := a.(k8stesting.PatchActionImpl)
		if !ok || p.GetResource().Resource != "databaseroles" {
			continue
		}
		if p.GetPatchType() != types.ApplyPatchType || p.PatchOptions.FieldManager != ownership.FieldManager || !ptr.Deref(p.PatchOptions.Force, false) {
			t.Errorf("DatabaseRole %s written by %s as %q (force %v), want a forced apply by %s",
				p.GetName(), p.GetPatchType(), p.PatchOptions.FieldManager, p.PatchOptions.Force, ownership.FieldManager)
		}
	}
}

// appliedSpecFields are the spec fields our field manager owns — by the
// create of the first write, then by apply — sorted.
func appliedSpecFields(t *testing.T, mfs []metav1.ManagedFieldsEntry) []string {
	t.Helper()
	var out []string
	for _, mf := range mfs {
		if mf.Manager != ownership.FieldManager || mf.FieldsV1 == nil {
			continue
		}
		var fields map[string]map[string]any
		if err := json.Unmarshal(mf.FieldsV1.Raw, &fields); err != nil {
			t.Fatal(err)
		}
		for k := range fields["f:spec"] {
			if k != "." && !slices.Contains(out, k) { // "." is the spec itself
				out = append(out, k)
			}
		}
		if _, ok := fields["f:status"]; ok {
			t.Errorf("our apply owns status: %s", mf.FieldsV1.Raw)
		}
	}
	slices.Sort(out)
	return out
}

// What the API server and CloudNativePG add to a DatabaseRole — the
// CRD's defaults, CNPG's finalizer, its status and condition, someone's
// label — is no reason to apply: a converged pass writes nothing and asks
// Postgres nothing.
func TestConvergedRolesCostNoWrite(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}))
	for _, obj := range []string{"pg.orders-admin", "pg.orders-rw"} {
		r := f.role(obj)
		r.Spec.Ensure = cnpgv1.EnsurePresent
		r.Spec.Inherit = ptr.To(true)
		r.Spec.ConnectionLimit = ptr.To[int64](-1)
		r.Labels["team"] = "payments"
		r.Status.SecretResourceVersion = "42"
		r.Status.Conditions = []metav1.Condition{{Type: cnpgv1.DatabaseRoleConditionPasswordSecretChange, Status: metav1.ConditionTrue,
			Reason: "Changed", Message: "42", LastTransitionTime: metav1.Now()}}
		if _, err := f.pg.CNPGV1().DatabaseRoles(ns).Update(t.Context(), r, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	execs, reads := len(f.sql.execs), f.sql.roleReads
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); len(w) != 0 {
		t.Errorf("converged pass wrote %v", w)
	}
	if len(f.sql.execs) != execs || f.sql.roleReads != reads {
		t.Errorf("converged pass ran SQL: %d transactions, %d role reads", len(f.sql.execs)-execs, f.sql.roleReads-reads)
	}
	if f.db("shop").Status.Phase != pgv1.PhaseReady {
		t.Errorf("phase %s", f.db("shop").Status.Phase)
	}
}

// A field of ours changed by someone else is applied back, and the
// database is Ready again only once CloudNativePG applied the object's
// new generation.
func TestDriftedRoleIsAppliedBackAndWaitedFor(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}))
	r := f.role("pg.orders-rw")
	r.Spec.PasswordSecret = &cnpgv1.LocalObjectReference{Name: "someone-elses"}
	r.Generation++ // the API server's, for a spec change
	if _, err := f.pg.CNPGV1().DatabaseRoles(ns).Update(t.Context(), r, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.applyRoles() // CNPG applies what it was given
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); count(w, "patch databaseroles") != 1 {
		t.Fatalf("writes = %v, want the drifted DatabaseRole applied back", w)
	}
	f.expectSent("patch", "databaseroles", "pg.orders-rw", shopRoleApply("orders_rw", cnpgv1.DatabaseRoleReclaimRetain))
	got := f.role("pg.orders-rw")
	if got.Spec.PasswordSecret.Name != "shop-orders-rw" || got.Generation != r.Generation+1 {
		t.Fatalf("DatabaseRole = %+v generation %d", got.Spec, got.Generation)
	}
	db := f.db("shop")
	if c := cond(t, db, pgv1.ConditionRolesReady); db.Status.Phase != pgv1.PhaseProvisioning || c.Reason != "RolesPending" {
		t.Errorf("phase %s RolesReady %+v, want the wait for CloudNativePG", db.Status.Phase, c)
	}
	f.applyRoles()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if db := f.db("shop"); db.Status.Phase != pgv1.PhaseReady {
		t.Errorf("phase %s after CNPG applied the new generation", db.Status.Phase)
	}
}

// Ready means CloudNativePG applied each DatabaseRole as it is now: a
// report of an older generation, or none, is a wait.
func TestReadyOnlyWhenAppliedAtTheCurrentGeneration(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", DeletionPolicy: pgv1.DeletionPolicyRetain}))
	// Reclaim delete on a Retain database's DatabaseRole (edited by hand):
	// the apply of reclaim retain makes a new generation.
	f.setReclaim("pg.orders-admin", cnpgv1.DatabaseRoleReclaimDelete)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	r := f.role("pg.orders-admin")
	if r.Spec.DatabaseRoleReclaimPolicy != cnpgv1.DatabaseRoleReclaimRetain || r.Status.ObservedGeneration == r.Generation {
		t.Fatalf("DatabaseRole = %+v %+v, want reclaim retain at a generation not yet applied", r.Spec, r.Status)
	}
	db := f.db("shop")
	if db.Status.Phase != pgv1.PhaseProvisioning || cond(t, db, pgv1.ConditionRolesReady).Reason != "RolesPending" ||
		cond(t, db, pgv1.ConditionReady).Status != metav1.ConditionFalse {
		t.Fatalf("phase %s RolesReady %+v", db.Status.Phase, cond(t, db, pgv1.ConditionRolesReady))
	}
	for name, st := range map[string]cnpgv1.DatabaseRoleStatus{
		"applied at the previous generation": {ObservedGeneration: r.Generation - 1, Applied: ptr.To(true)},
		"no verdict yet":                     {ObservedGeneration: r.Generation},
	} {
		f.setRoleStatus(f.role("pg.orders-admin"), st)
		if _, err := f.syncReported("shop"); err != nil {
			t.Fatal(err)
		}
		db := f.db("shop")
		if c := cond(t, db, pgv1.ConditionRolesReady); db.Status.Phase == pgv1.PhaseReady || c.Reason != "RolesPending" {
			t.Errorf("%s: phase %s RolesReady %+v, want the wait for CloudNativePG", name, db.Status.Phase, c)
		}
	}
	f.applyRoles()
	for range 2 { // the CNPG Database's new reclaim policy too, then Ready
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
	}
	if db := f.db("shop"); db.Status.Phase != pgv1.PhaseReady || !db.Status.Databases[0].Roles[0].Exists {
		t.Errorf("status = %+v, want Ready once applied", db.Status)
	}
}

// A role CloudNativePG cannot apply is a wait with CNPG's own message, in
// RolesReady and the database's entry; the pass goes on by itself when CNPG
// succeeds.
func TestRoleNotAppliedShowsCNPGMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.applyRoles()
	msg := `could not apply role "orders_rw": password Secret "shop-orders-rw" is not a basic-auth Secret`
	f.failRole("pg.orders-rw", msg)
	res, err := f.sync("shop")
	if err != nil || res.RequeueAfter != provisionRecheck {
		t.Fatalf("res %+v err %v", res, err)
	}
	db := f.db("shop")
	c := cond(t, db, pgv1.ConditionRolesReady)
	if db.Status.Phase != pgv1.PhaseProvisioning || c.Reason != "RoleNotApplied" ||
		!strings.Contains(c.Message, `CloudNativePG could not apply role orders_rw (DatabaseRole "pg.orders-rw"): `+msg) {
		t.Errorf("phase %s RolesReady %+v", db.Status.Phase, c)
	}
	if e := db.Status.Databases[0]; !strings.Contains(e.Message, msg) || e.Ready {
		t.Errorf("entry = %+v", e)
	}
	if r := roleStatus(t, db, "orders_rw"); r.Exists {
		t.Error("a role CNPG could not apply counted as there")
	}
	// The owner role is applied: its CNPG Database is created ahead of the
	// step's turn (databases_ahead.go), whose condition stays Blocked.
	if d, err := f.pg.CNPGV1().Databases(ns).Get(t.Context(), "shop-orders", metav1.GetOptions{}); err != nil || d.Spec.Owner != "orders_admin" {
		t.Errorf("CNPG Database of the applied owner: %+v, %v", d, err)
	}
	if c := cond(t, db, pgv1.ConditionDatabasesReady); c.Reason != pgv1.ReasonBlocked {
		t.Errorf("DatabasesReady = %+v, want Blocked while a role is not applied", c)
	}
	f.applyRoles()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if c := cond(t, f.db("shop"), pgv1.ConditionRolesReady); c.Status != metav1.ConditionTrue {
		t.Errorf("RolesReady = %+v once CNPG applied the role", c)
	}
}

// A password reaches CloudNativePG only through the Secret a DatabaseRole
// names: never the object itself, a status message or an Event — whatever
// the pass went through (a role CNPG refused, a rotation, a deletion).
func TestPasswordsNeverLeaveTheirSecrets(t *testing.T) {
	t.Parallel()
	spec := pgv1.DatabaseSpec{Name: "order_items", ReadOnlyRole: true,
		PasswordConfig: &pgv1.DatabasePasswordConfig{RWSecretRef: &pgv1.LocalObjectReference{Name: "vault-rw"}}}
	f := newFixture(t, append(clusterSecrets(), vaultRW()), []runtime.Object{readyCluster(), newDatabase("shop", spec)})
	var seen []string
	passwords := []string{"the-users-own", "s3cret"}
	look := func() {
		t.Helper()
		for _, name := range []string{"shop-order-items-admin", "shop-order-items-ro"} {
			if s, err := f.kube.CoreV1().Secrets(ns).Get(t.Context(), name, metav1.GetOptions{}); err == nil {
				passwords = append(passwords, string(s.Data["password"]))
			}
		}
		db := f.db("shop")
		for _, c := range db.Status.Conditions {
			seen = append(seen, c.Message)
		}
		for _, e := range db.Status.Databases {
			seen = append(seen, e.Message)
		}
		roles, err := f.pg.CNPGV1().DatabaseRoles(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(roles)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, string(raw))
		seen = append(seen, f.events()...)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	look()
	f.applyRoles()
	f.failRole("pg.order-items-admin", "password authentication failed")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	look()
	converge(t, f, "shop")
	f.annotate("shop", map[string]string{pgv1.RotatePasswordsAnnotation: "r1"})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	look()
	f.startDeletion("shop")
	for range 3 {
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		look()
		f.applyRoles()
	}
	if len(passwords) < 6 {
		t.Fatalf("looked at %d passwords, want the generated ones before and after the rotation", len(passwords))
	}
	for _, p := range passwords {
		for _, s := range seen {
			if strings.Contains(s, p) {
				t.Errorf("a password left its Secret: %s", s)
			}
		}
	}
}

// A database whose owner role CNPG has not applied gets no CNPG Database:
// CNPG would refuse it, and try again only after its interval.
func TestNoDatabaseAheadOfItsOwner(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.applyRoles()
	f.failRole("pg.orders-admin", "could not apply role")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pg.CNPGV1().Databases(ns).Get(t.Context(), "shop-orders", metav1.GetOptions{}); err == nil {
		t.Error("CNPG Database applied while its owner role is not")
	}
}

// A Delete database's DatabaseRoles that an earlier release left at
// reclaim delete are current: an upgrade writes none of them, so CNPG
// applies nothing again and the database stays Ready. The next apply for
// another reason writes retain.
func TestUpgradeKeepsLegacyReclaimDelete(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}))
	f.setReclaim("pg.orders-admin", cnpgv1.DatabaseRoleReclaimDelete)
	f.setReclaim("pg.orders-rw", cnpgv1.DatabaseRoleReclaimDelete)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); slices.ContainsFunc(w, func(w string) bool { return strings.HasSuffix(w, " databaseroles") }) {
		t.Errorf("an upgraded pass rewrote DatabaseRoles: %v", w)
	}
	if db := f.db("shop"); db.Status.Phase != pgv1.PhaseReady {
		t.Errorf("phase %s after the upgrade's pass, want Ready", db.Status.Phase)
	}
	r := f.role("pg.orders-rw")
	r.Spec.Superuser = true
	if _, err := f.pg.CNPGV1().DatabaseRoles(ns).Update(t.Context(), r, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if got := f.role("pg.orders-rw"); got.Spec.DatabaseRoleReclaimPolicy != cnpgv1.DatabaseRoleReclaimRetain || got.Spec.Superuser {
		t.Errorf("repaired DatabaseRole = %+v, want reclaim retain and no superuser", got.Spec)
	}
}
