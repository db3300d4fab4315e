package database

import (
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// extraRolesSpec: a login role migrator owning schema app, limited to 5
// connections; a group analytics reading two tables; a login role
// reporter taking analytics' privileges through inRoles.
func extraRolesSpec() pgv1.DatabaseSpec {
	return pgv1.DatabaseSpec{Name: "orders",
		Schemas: []pgv1.SchemaSpec{{Name: "app", Owner: "migrator"}},
		Roles: []pgv1.DatabaseRoleSpec{
			{Name: "migrator", Login: ptr.To(true), ConnectionLimit: ptr.To[int32](5),
				Grants: []pgv1.Grant{{Object: pgv1.GrantOnDatabase, Privileges: []pgv1.Privilege{"CONNECT"}}}},
			{Name: "analytics", Grants: []pgv1.Grant{
				{Object: pgv1.GrantOnSchema, Schema: "app", Privileges: []pgv1.Privilege{"USAGE"}},
				{Object: pgv1.GrantOnTables, Schema: "app", Names: []string{"orders", "items"}, Privileges: []pgv1.Privilege{"SELECT"}}}},
			{Name: "reporter", Login: ptr.To(true), InRoles: []string{"analytics"},
				Grants: []pgv1.Grant{{Object: pgv1.GrantOnDatabase, Privileges: []pgv1.Privilege{"CONNECT"}}}},
		}}
}

// bareCatalog is a database where only reporter holds anything: CONNECT.
func bareCatalog() *grantplan.Catalog {
	db := grantplan.Object{Kind: grantplan.Database, Name: "orders", Owner: "orders_admin"}
	return &grantplan.Catalog{DatabaseOwner: "orders_admin",
		Objects: []grantplan.Object{{Kind: grantplan.Schema, Name: "public", Owner: "pg_database_owner"}},
		Held:    []grantplan.Held{{Object: db, Grantee: "orders_reporter", Privilege: "CONNECT"}}}
}

// settle runs passes, with CNPG applying the roles between them, until
// name is Ready (the owner joins the extra roles once CNPG made them,
// one more round than the fixed roles take).
func settle(t *testing.T, f *fixture, name string) {
	t.Helper()
	for range 8 {
		if _, err := f.sync(name); err != nil {
			t.Fatal(err)
		}
		f.applyRoles()
		for _, d := range f.db(name).Spec.Databases {
			obj := naming.Database(name, d.Name).CNPG
			if d, err := f.pg.CNPGV1().Databases(ns).Get(t.Context(), obj, metav1.GetOptions{}); err == nil && d.Status.Applied == nil {
				f.markApplied(obj, true, "")
			}
		}
		if f.db(name).Status.Phase == pgv1.PhaseReady {
			return
		}
	}
	t.Fatalf("not Ready: %+v", f.db(name).Status)
}

// Each extra role gets its CNPG DatabaseRole, with login, memberships and
// connection limit as declared; a login role a generated Secret, a group
// none; the owner joins them, and the schema is created with its owner.
func TestExtraRolesAreMade(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", extraRolesSpec())})
	f.sql.held = bareCatalog()
	settle(t, f, "shop")

	m := f.role("pg.orders-migrator").Spec
	if !m.Login || ptr.Deref(m.ConnectionLimit, -1) != 5 || m.PasswordSecret == nil || m.PasswordSecret.Name != "shop-orders-migrator" || len(m.InRoles) != 0 {
		t.Errorf("migrator's DatabaseRole: login %v, limit %v, secret %+v, inRoles %v", m.Login, m.ConnectionLimit, m.PasswordSecret, m.InRoles)
	}
	a := f.role("pg.orders-analytics").Spec
	if a.Login || a.PasswordSecret != nil || ptr.Deref(a.ConnectionLimit, -1) != -1 {
		t.Errorf("analytics' DatabaseRole: login %v, secret %+v, limit %v; want a group without password", a.Login, a.PasswordSecret, a.ConnectionLimit)
	}
	if r := f.role("pg.orders-reporter").Spec; !slices.Equal(r.InRoles, []string{"orders_analytics"}) {
		t.Errorf("reporter's inRoles = %v, want [orders_analytics]", r.InRoles)
	}
	if got := f.role("pg.orders-admin").Spec.InRoles; !slices.Equal(got, []string{"orders_analytics", "orders_migrator", "orders_reporter"}) {
		t.Errorf("the owner's inRoles = %v, want every extra role", got)
	}
	if s := f.secret("shop-orders-migrator"); string(s.Data["username"]) != "orders_migrator" || len(s.Data["password"]) == 0 {
		t.Errorf("migrator's Secret: username %q", s.Data["username"])
	}
	if _, err := f.kube.CoreV1().Secrets(ns).Get(t.Context(), "shop-orders-analytics", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a group got a Secret: %v", err)
	}
	e := f.db("shop").Status.Databases[0]
	for _, want := range []string{"orders_migrator", "orders_analytics", "orders_reporter"} {
		i := slices.IndexFunc(e.Roles, func(r pgv1.RoleStatus) bool { return r.Name == want })
		if i < 0 || !e.Roles[i].Exists || (want == "orders_analytics") != (e.Roles[i].PasswordSecretRef == nil) {
			t.Errorf("status lacks %s, or its Secret is wrong: %+v", want, e.Roles)
		}
	}
	var all []string
	for _, x := range f.sql.execs {
		all = append(all, x.stmts...)
	}
	for _, want := range []string{
		`CREATE SCHEMA "app" AUTHORIZATION "orders_migrator"`,
		`GRANT USAGE ON SCHEMA "app" TO "orders_analytics"`,
		`GRANT CONNECT ON DATABASE "orders" TO "orders_migrator"`,
	} {
		if !slices.Contains(all, want) {
			t.Errorf("no %s in:\n  %s", want, strings.Join(all, "\n  "))
		}
	}
}

// An extra role removed from the spec goes as deletionPolicy Delete
// says: its privileges revoked as the owner, its DatabaseRole deleted
// with reclaim delete (CNPG drops the role), its Secret deleted, and the
// owner leaves it.
func TestRemovedExtraRoleIsDropped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", extraRolesSpec())})
	settle(t, f, "shop")
	f.sql.held = bareCatalog()
	db := f.db("shop")
	spec := extraRolesSpec()
	spec.Roles = spec.Roles[:2] // reporter leaves
	db.Spec.Databases = []pgv1.DatabaseSpec{spec}
	db.Generation++
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	execs := len(f.sql.execs)
	settle(t, f, "shop")
	if f.hasRole("pg.orders-reporter") {
		t.Error("reporter's DatabaseRole is still there")
	}
	if _, ok := f.sql.role("orders_reporter"); ok {
		t.Error("role orders_reporter is still in Postgres")
	}
	if _, err := f.kube.CoreV1().Secrets(ns).Get(t.Context(), "shop-orders-reporter", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("reporter's Secret is still there: %v", err)
	}
	var revoked bool
	for _, x := range f.sql.execs[execs:] {
		revoked = revoked || slices.Contains(x.stmts, `REVOKE CONNECT ON DATABASE "orders" FROM "orders_reporter"`) && x.target.User == "orders_admin"
	}
	if !revoked {
		t.Errorf("reporter's privileges were not revoked as the owner before the drop: %v", f.sql.execs[execs:])
	}
	if got := f.role("pg.orders-admin").Spec.InRoles; slices.Contains(got, "orders_reporter") {
		t.Errorf("the owner is still a member of the dropped role: %v", got)
	}
	if e := f.db("shop").Status.Databases[0]; slices.ContainsFunc(e.Roles, func(r pgv1.RoleStatus) bool { return r.Name == "orders_reporter" }) {
		t.Errorf("status still lists the dropped role: %+v", e.Roles)
	}
	// The owner leaving the role is the spec's change, not an edit.
	for _, e := range f.events() {
		if strings.Contains(e, pgv1.EventRolePrivilegesReverted) {
			t.Errorf("a spec change was reported as an edit: %s", e)
		}
	}
}

// A role Postgres has that setpoint did not make is refused, as for the
// fixed roles: nothing is written for it.
func TestExtraRoleMadeByHandIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", extraRolesSpec())})
	f.sql.setRole("orders_migrator", "")
	for range 3 {
		_, _ = f.sync("shop")
		f.applyRoles()
	}
	db := f.db("shop")
	if c := cond(t, db, pgv1.ConditionRolesReady); db.Status.Phase != pgv1.PhaseFailed || c.Reason != pgv1.ReasonRoleExists || !strings.Contains(c.Message, "orders_migrator") {
		t.Errorf("phase %s, RolesReady %s: %s", db.Status.Phase, c.Reason, c.Message)
	}
	if f.hasRole("pg.orders-migrator") {
		t.Error("a DatabaseRole was made for a role setpoint did not create")
	}
}

// Two databases of one object cannot name one role: database a's role
// b_rw would be database a_b's rw.
func TestExtraRoleNamesCollideAcrossDatabases(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "a", Roles: []pgv1.DatabaseRoleSpec{{Name: "b_rw"}}}, pgv1.DatabaseSpec{Name: "a_b"})
	if err := validate(db); err == nil || !strings.Contains(err.Error(), "a_b_rw") {
		t.Errorf("validate = %v, want the collision on a_b_rw", err)
	}
}

// A group given login gets its first Secret: a new password, not one
// recreated (no SecretRecreated Event), and CNPG is given it.
func TestExtraRoleGivenLoginGetsASecret(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", extraRolesSpec())})
	settle(t, f, "shop")
	f.events()
	db := f.db("shop")
	db.Spec.Databases[0].Roles[1].Login = ptr.To(true) // analytics
	db.Generation++
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	settle(t, f, "shop")
	if s := f.secret("shop-orders-analytics"); string(s.Data["username"]) != "orders_analytics" || s.Annotations[credentials.RecreatedAtAnnotation] != "" {
		t.Errorf("analytics' Secret: username %q, annotations %v", s.Data["username"], s.Annotations)
	}
	if r := f.role("pg.orders-analytics").Spec; !r.Login || r.PasswordSecret == nil || r.PasswordSecret.Name != "shop-orders-analytics" {
		t.Errorf("analytics' DatabaseRole: login %v, secret %+v", r.Login, r.PasswordSecret)
	}
	for _, e := range f.events() {
		if strings.Contains(e, pgv1.EventSecretRecreated) {
			t.Errorf("a first Secret was reported recreated: %s", e)
		}
	}
}

// Deleting the PostgresDatabase (policy Delete) drops the extra roles
// with the fixed ones, and deletes their Secrets.
func TestDeleteDropsExtraRoles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", extraRolesSpec())})
	settle(t, f, "shop")
	f.startDeletion("shop")
	for range 8 {
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		f.applyRoles()
	}
	for _, role := range []string{"orders_admin", "orders_rw", "orders_migrator", "orders_analytics", "orders_reporter"} {
		if f.hasRole(naming.RoleObject("pg", role)) {
			t.Errorf("DatabaseRole of %s is still there", role)
		}
		if _, ok := f.sql.role(role); ok {
			t.Errorf("role %s is still in Postgres", role)
		}
	}
	for _, s := range []string{"shop-orders-migrator", "shop-orders-reporter"} {
		if _, err := f.kube.CoreV1().Secrets(ns).Get(t.Context(), s, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("Secret %s after deletion: %v", s, err)
		}
	}
}

// A fixed role's connection limit is its entry's in spec.roles, through
// its DatabaseRole as an extra role's is: set, changed, and back to none
// when the entry drops it; the owner's stays unlimited.
func TestFixedRoleConnectionLimit(t *testing.T) {
	t.Parallel()
	spec := pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true, Roles: []pgv1.DatabaseRoleSpec{
		{Name: "rw", ConnectionLimit: ptr.To[int32](10)}, {Name: "ro", ConnectionLimit: ptr.To[int32](3)}}}
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", spec)})
	settle(t, f, "shop")
	limits := func() (admin, rw, ro int64) {
		return ptr.Deref(f.role("pg.orders-admin").Spec.ConnectionLimit, 0), ptr.Deref(f.role("pg.orders-rw").Spec.ConnectionLimit, 0),
			ptr.Deref(f.role("pg.orders-ro").Spec.ConnectionLimit, 0)
	}
	if a, rw, ro := limits(); a != -1 || rw != 10 || ro != 3 {
		t.Fatalf("limits admin %d rw %d ro %d, want -1 10 3", a, rw, ro)
	}
	db := f.db("shop")
	db.Spec.Databases[0].Roles[0].ConnectionLimit = ptr.To[int32](20)
	db.Spec.Databases[0].Roles[1].ConnectionLimit = nil
	db.Generation++
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	settle(t, f, "shop")
	if a, rw, ro := limits(); a != -1 || rw != 20 || ro != -1 {
		t.Errorf("after the change: admin %d rw %d ro %d, want -1 20 -1", a, rw, ro)
	}
}

// The connection ConfigMap names each extra login role as it names the
// fixed ones (<name>-user, <name>-secret); a group, without login, is
// not named. By certificate, the role's certificate Secret replaces its
// password Secret.
func TestExtraLoginRolesAreInTheConfigMap(t *testing.T) {
	t.Parallel()
	for _, auth := range []pgv1.Authentication{"", pgv1.AuthenticationCertificate} {
		spec := extraRolesSpec()
		spec.Authentication = auth
		f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", spec)})
		f.sql.held = bareCatalog()
		if auth == "" {
			settle(t, f, "shop")
		} else {
			// The ConfigMap goes out before the roles' certificates, which
			// this fixture's CNPG never issues.
			for range 3 {
				if _, err := f.sync("shop"); err != nil {
					t.Fatal(err)
				}
				f.applyRoles()
			}
		}
		cm, err := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"migrator-user": "orders_migrator", "reporter-user": "orders_reporter"}
		if auth == "" {
			want["migrator-secret"], want["reporter-secret"] = "shop-orders-migrator", "shop-orders-reporter"
		} else {
			want["migrator-cert-secret"] = naming.ClientCertSecret(naming.RoleObject("pg", "orders_migrator"))
			want["reporter-cert-secret"] = naming.ClientCertSecret(naming.RoleObject("pg", "orders_reporter"))
		}
		for k, v := range want {
			if cm.Data[k] != v {
				t.Errorf("%q: ConfigMap key %s = %q, want %q", auth, k, cm.Data[k], v)
			}
		}
		for k := range cm.Data {
			if strings.HasPrefix(k, "analytics-") || (auth != "" && strings.HasSuffix(k, "-secret") && !strings.HasSuffix(k, "cert-secret") && k != naming.KeyCASecret) {
				t.Errorf("%q: ConfigMap has %s", auth, k)
			}
		}
	}
}
