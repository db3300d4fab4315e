package database

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
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
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})})
	converge(t, f, "shop")
	f.expectStored(shopSecret("orders_ro"), f.secret("shop-orders-ro"), randomPassword)
	db := f.db("shop")
	if got := roleNamesOf(db); !slices.Equal(got, []string{"orders_admin/present", "orders_rw/present", "orders_ro/present"}) {
		t.Errorf("roles = %v", got)
	}
	if db.Status.Databases[0].ROSecretRef == nil || db.Status.Databases[0].ROSecretRef.Name != "shop-orders-ro" {
		t.Errorf("roSecretRef = %+v", db.Status.Databases[0].ROSecretRef)
	}
	cm, err := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	withRO := shopConfigMap("orders")
	withRO.Data["ro-user"], withRO.Data["ro-secret"] = "orders_ro", "shop-orders-ro"
	f.expectStored(withRO, cm)
	stmts := f.sql.execs[len(f.sql.execs)-1].stmts
	for _, want := range []string{
		`GRANT CONNECT, TEMPORARY ON DATABASE "orders" TO "orders_ro"`,
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

// Removing the flag with Delete: privileges revoked while our DatabaseRole
// is live, the DatabaseRole given reclaim delete (retain while the role was
// wanted), then deleted once CNPG applied that, and the role listed
// absent; once Postgres no longer has the role, its Secret deleted and the
// role forgotten — then passes are idle.
func TestReadOnlyRoleRemovedWithDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})})
	converge(t, f, "shop")
	ro := f.role("pg.orders-ro")
	f.setSpec("shop", func(d *pgv1.DatabaseSpec) { d.ReadOnlyRole = false })

	execs := len(f.sql.execs)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if len(f.sql.execs) != execs+1 || !slices.Contains(f.sql.execs[execs].stmts, `REVOKE ALL ON DATABASE "orders" FROM "orders_ro"`) {
		t.Fatalf("no revoke before the drop: %+v", f.sql.execs[execs:])
	}
	f.expectSent("patch", "databaseroles", "pg.orders-ro", shopRoleApply("orders_ro", cnpgv1.DatabaseRoleReclaimDelete))
	if r := f.role("pg.orders-ro"); r.DeletionTimestamp != nil {
		t.Fatalf("DatabaseRole = %+v, want not deleted before CNPG applied reclaim delete", r)
	}
	f.applyRoles()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if uid := deletesOf(f.pg.Actions(), "databaseroles")["pg.orders-ro"]; uid != ro.UID {
		t.Errorf("DatabaseRole deletes %v, want pg.orders-ro with its UID %s", deletesOf(f.pg.Actions(), "databaseroles"), ro.UID)
	}
	if r := f.role("pg.orders-ro"); r.DeletionTimestamp == nil || r.Spec.DatabaseRoleReclaimPolicy != cnpgv1.DatabaseRoleReclaimDelete {
		t.Errorf("DatabaseRole = %+v, want deleted with reclaim delete", r)
	}
	db := f.db("shop")
	if got := roleNamesOf(db); !slices.Equal(got, []string{"orders_admin/present", "orders_rw/present", "orders_ro/absent"}) {
		t.Errorf("roles = %v", got)
	}
	if c := cond(t, db, pgv1.ConditionSecretsReady); c.Reason != "RoleCleanupPending" || db.Status.Phase != pgv1.PhaseProvisioning {
		t.Errorf("phase %s SecretsReady %+v", db.Status.Phase, c)
	}

	// CloudNativePG has not dropped it yet: wait, without revoking again.
	execs = len(f.sql.execs)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if !f.hasSecret("shop-orders-ro") || len(f.sql.execs) != execs {
		t.Fatalf("while CNPG drops the role: Secret kept %v, SQL %+v", f.hasSecret("shop-orders-ro"), f.sql.execs[execs:])
	}
	f.applyRoles()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if f.hasSecret("shop-orders-ro") {
		t.Error("ro Secret kept after the role was dropped")
	}
	if got := roleNamesOf(f.db("shop")); !slices.Equal(got, []string{"orders_admin/present", "orders_rw/present"}) {
		t.Errorf("roles = %v", got)
	}
	// Done: nothing starts again, no write, no SQL.
	execs, reads := len(f.sql.execs), f.sql.roleReads
	for range 2 {
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		if w := f.allWrites(); len(w) != 0 {
			t.Errorf("idle pass wrote %v", w)
		}
	}
	if len(f.sql.execs) != execs || f.sql.roleReads != reads {
		t.Errorf("idle passes ran SQL: %+v, %d role reads", f.sql.execs[execs:], f.sql.roleReads-reads)
	}
	cm, _ := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
	f.expectStored(shopConfigMap("orders"), cm) // without the ro keys
	if _, ok := f.sql.role("orders_ro"); ok {
		t.Error("orders_ro still in Postgres")
	}
}

// Removing the flag with Retain: the DatabaseRole is deleted with reclaim
// retain (the role stays in Postgres with our marker) and the Secret is
// released, no SQL. Back on, the Secret (and its password) is adopted and
// the role, ours by its marker, gets a DatabaseRole again — once CNPG let
// the previous one go.
func TestReadOnlyRoleRemovedWithRetain(t *testing.T) {
	t.Parallel()
	spec := pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true, DeletionPolicy: pgv1.DeletionPolicyRetain}
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", spec)})
	converge(t, f, "shop")
	password := string(f.secret("shop-orders-ro").Data["password"])
	f.setSpec("shop", func(d *pgv1.DatabaseSpec) { d.ReadOnlyRole = false })
	execs, reads := len(f.sql.execs), f.sql.roleReads
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.sql.execs[execs:] {
		if slices.ContainsFunc(c.stmts, func(s string) bool { return strings.Contains(s, "orders_ro") }) {
			t.Errorf("Retain ran SQL on the role: %v", c.stmts)
		}
	}
	if f.sql.roleReads != reads {
		t.Errorf("Retain looked the role up in Postgres %d times", f.sql.roleReads-reads)
	}
	if r := f.role("pg.orders-ro"); r.DeletionTimestamp == nil || r.Spec.DatabaseRoleReclaimPolicy != cnpgv1.DatabaseRoleReclaimRetain {
		t.Errorf("DatabaseRole = %+v, want deleted with reclaim retain", r)
	}
	if got := roleNamesOf(f.db("shop")); !slices.Equal(got, []string{"orders_admin/present", "orders_rw/present"}) {
		t.Errorf("roles = %v", got)
	}
	kept := shopSecret("orders_ro")
	kept.Data["password"] = []byte(password)
	f.expectStored(released(kept.DeepCopy()), f.secret("shop-orders-ro"))

	// Back on while CNPG still holds the previous DatabaseRole: the Secret
	// is adopted with its password; the role waits for the object to go.
	f.setSpec("shop", func(d *pgv1.DatabaseSpec) { d.ReadOnlyRole = true })
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.expectStored(kept, f.secret("shop-orders-ro"))
	got := f.db("shop")
	if c := cond(t, got, pgv1.ConditionRolesReady); c.Reason != "RolesPending" ||
		!strings.Contains(got.Status.Databases[0].Message, `waiting for the previous DatabaseRole "pg.orders-ro" of role orders_ro to be deleted`) {
		t.Errorf("RolesReady = %+v, entry %q; want the wait for the previous DatabaseRole", c, got.Status.Databases[0].Message)
	}
	if r := f.role("pg.orders-ro"); r.DeletionTimestamp == nil {
		t.Error("the DatabaseRole being deleted was written")
	}
	f.applyRoles() // CNPG lets it go and keeps the role
	if c, ok := f.sql.role("orders_ro"); !ok || c != ownership.PostgresMarker(ns, "shop") {
		t.Fatalf("role orders_ro: %v %q, want kept with our marker", ok, c)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.expectStored(shopRole("orders_ro"), f.role("pg.orders-ro"))
}

// Without its PostgresCluster nothing of the role is removed — the Secret
// may still be its password on a retained CNPG Cluster — and the pass says
// where it waits (the cluster) instead of failing. The role stays listed:
// the removal goes on once the cluster is back.
func TestReadOnlyRemovalWaitsForTheCluster(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})})
	converge(t, f, "shop")
	if err := f.pg.PostgresV1alpha1().PostgresClusters(ns).Delete(t.Context(), "pg", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.setSpec("shop", func(d *pgv1.DatabaseSpec) { d.ReadOnlyRole = false })
	execs := len(f.sql.execs)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	db := f.db("shop")
	if c := cond(t, db, pgv1.ConditionClusterReady); c.Reason != "ClusterNotFound" || db.Status.Phase != pgv1.PhasePending {
		t.Errorf("phase %s ClusterReady %+v", db.Status.Phase, c)
	}
	if got := roleNamesOf(db); !slices.Contains(got, "orders_ro/present") {
		t.Errorf("roles = %v, want orders_ro still listed", got)
	}
	if w := f.allWrites(); slices.ContainsFunc(w, func(w string) bool { return strings.HasSuffix(w, " databaseroles") || strings.HasSuffix(w, " secrets") }) {
		t.Errorf("removed without the cluster: %v", w)
	}
	if len(f.sql.execs) != execs {
		t.Errorf("SQL without the cluster: %+v", f.sql.execs[execs:])
	}

	// The cluster is back: the removal goes on.
	if _, err := f.pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), readyCluster(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.expectSent("patch", "databaseroles", "pg.orders-ro", shopRoleApply("orders_ro", cnpgv1.DatabaseRoleReclaimDelete))
	f.applyRoles()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if r := f.role("pg.orders-ro"); r.DeletionTimestamp == nil {
		t.Error("DatabaseRole not deleted once the cluster is back")
	}
}
