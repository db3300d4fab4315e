package database

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

func (f *fixture) setSpec(name string, mutate func(*pgv1.DatabaseSpec)) {
	f.t.Helper()
	db := f.db(name)
	mutate(&db.Spec.Databases[0])
	db.Generation++
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(f.t.Context(), db, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) hasSecret(name string) bool {
	_, err := f.kube.CoreV1().Secrets(ns).Get(f.t.Context(), name, metav1.GetOptions{})
	return err == nil
}

func roleNamesOf(db *pgv1.PostgresDatabase) []string {
	var out []string
	for _, r := range db.Status.Databases[0].Roles {
		out = append(out, r.Name+"/"+string(r.Ensure))
	}
	return out
}

// readOnlyRole adds <db>_ro: its Secret, its intent, its ConfigMap keys
// and its grants.
func TestReadOnlyRoleIsCreatedAndGranted(t *testing.T) {
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})})
	converge(t, f, "shop", "orders_admin", "orders_rw", "orders_ro")
	ro := f.secret("shop-orders-ro")
	if string(ro.Data["username"]) != "orders_ro" || ro.Labels[controller.ReloadLabel] != "true" || !controller.IsControlledBy(ro, "uid-shop") {
		t.Errorf("ro Secret = %+v", ro.ObjectMeta)
	}
	db := f.db("shop")
	if got := roleNamesOf(db); !slices.Equal(got, []string{"orders_admin/present", "orders_rw/present", "orders_ro/present"}) {
		t.Errorf("roles = %v", got)
	}
	if db.Status.Databases[0].ROSecretRef == nil || db.Status.Databases[0].ROSecretRef.Name != "shop-orders-ro" {
		t.Errorf("roSecretRef = %+v", db.Status.Databases[0].ROSecretRef)
	}
	cm, err := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
	if err != nil || cm.Data["ro-user"] != "orders_ro" || cm.Data["ro-secret"] != "shop-orders-ro" {
		t.Errorf("ConfigMap = %v %v", cm.Data, err)
	}
	stmts := f.sql.execs[len(f.sql.execs)-1].stmts
	for _, want := range []string{
		`GRANT CONNECT ON DATABASE "orders" TO "orders_ro"`,
		`GRANT USAGE ON SCHEMA public TO "orders_ro"`,
		`GRANT SELECT ON ALL TABLES IN SCHEMA public TO "orders_ro"`,
		`GRANT SELECT ON ALL SEQUENCES IN SCHEMA public TO "orders_ro"`,
		`ALTER DEFAULT PRIVILEGES FOR ROLE "orders_admin" IN SCHEMA public GRANT SELECT ON TABLES TO "orders_ro"`,
	} {
		if !slices.Contains(stmts, want) {
			t.Errorf("grant plan lacks %s", want)
		}
	}
	for _, s := range stmts {
		if strings.Contains(s, "orders_ro") && (strings.Contains(s, "INSERT") || strings.Contains(s, "UPDATE") || strings.Contains(s, "DELETE")) {
			t.Errorf("ro is granted a write: %s", s)
		}
	}
}

// Removing the flag with Delete: privileges revoked, the role published
// absent, and once Postgres no longer has it, its Secret deleted and the
// role forgotten — then passes are idle.
func TestReadOnlyRoleRemovedWithDelete(t *testing.T) {
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})})
	converge(t, f, "shop", "orders_admin", "orders_rw", "orders_ro")
	f.sql.existing = []string{"orders_admin", "orders_rw", "orders_ro"}
	f.setSpec("shop", func(d *pgv1.DatabaseSpec) { d.ReadOnlyRole = false })

	execs := len(f.sql.execs)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if len(f.sql.execs) != execs+1 || !slices.Contains(f.sql.execs[execs].stmts, `REVOKE ALL ON DATABASE "orders" FROM "orders_ro"`) {
		t.Fatalf("no revoke before the drop: %+v", f.sql.execs[execs:])
	}
	db := f.db("shop")
	if got := roleNamesOf(db); !slices.Equal(got, []string{"orders_admin/present", "orders_rw/present", "orders_ro/absent"}) {
		t.Errorf("roles = %v", got)
	}
	if c := cond(t, db, pgv1.ConditionSecretsReady); c.Reason != "RoleCleanupPending" || db.Status.Phase != pgv1.PhaseProvisioning {
		t.Errorf("phase %s SecretsReady %+v", db.Status.Phase, c)
	}
	// CNPG dropped it (reconciled as absent) but Postgres still lists it: wait.
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if !f.hasSecret("shop-orders-ro") {
		t.Fatal("Secret deleted before the role is gone")
	}
	f.sql.existing = []string{"orders_admin", "orders_rw"}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if f.hasSecret("shop-orders-ro") {
		t.Error("ro Secret kept after the role was dropped")
	}
	if got := roleNamesOf(f.db("shop")); !slices.Equal(got, []string{"orders_admin/present", "orders_rw/present"}) {
		t.Errorf("roles = %v", got)
	}
	// The cluster still lists the role a moment: nothing starts again.
	execs = len(f.sql.execs)
	for range 2 {
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
	}
	if got := roleNamesOf(f.db("shop")); !slices.Equal(got, []string{"orders_admin/present", "orders_rw/present"}) {
		t.Errorf("roles later = %v", got)
	}
	f.setCluster(ownRoles(f.db("shop"), "orders_admin", "orders_rw"))
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); len(w) != 0 {
		t.Errorf("idle pass wrote %v", w)
	}
	cm, _ := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
	if _, ok := cm.Data["ro-user"]; ok {
		t.Errorf("ConfigMap keeps ro-user: %v", cm.Data)
	}
	for _, c := range f.sql.execs[execs:] {
		if slices.ContainsFunc(c.stmts, func(s string) bool { return strings.HasPrefix(s, "REVOKE") }) {
			t.Errorf("revoked again: %v", c.stmts)
		}
	}
}

// Removing the flag with Retain: the role is no longer asked for and its
// Secret is released (retained marks, no owner), no SQL.
func TestReadOnlyRoleRemovedWithRetain(t *testing.T) {
	spec := pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true, DeletionPolicy: pgv1.DeletionPolicyRetain}
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", spec)})
	converge(t, f, "shop", "orders_admin", "orders_rw", "orders_ro")
	password := string(f.secret("shop-orders-ro").Data["password"])
	f.setSpec("shop", func(d *pgv1.DatabaseSpec) { d.ReadOnlyRole = false })
	execs := len(f.sql.execs)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.sql.execs[execs:] {
		if slices.ContainsFunc(c.stmts, func(s string) bool { return strings.Contains(s, "orders_ro") }) {
			t.Errorf("Retain ran SQL on the role: %v", c.stmts)
		}
	}
	if got := roleNamesOf(f.db("shop")); !slices.Equal(got, []string{"orders_admin/present", "orders_rw/present"}) {
		t.Errorf("roles = %v", got)
	}
	s := f.secret("shop-orders-ro")
	if len(s.OwnerReferences) != 0 || s.Labels[controller.RetainedLabel] != "true" || string(s.Data["password"]) != password {
		t.Errorf("ro Secret not released as it was: %+v", s.ObjectMeta)
	}
	// Back on: the same Secret (and password) is adopted.
	f.setSpec("shop", func(d *pgv1.DatabaseSpec) { d.ReadOnlyRole = true })
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if s := f.secret("shop-orders-ro"); !controller.IsControlledBy(s, "uid-shop") || string(s.Data["password"]) != password {
		t.Errorf("ro Secret not adopted with its password: %+v", s.ObjectMeta)
	}
}
