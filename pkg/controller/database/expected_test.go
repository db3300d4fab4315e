package database

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// The writes of the last pass, compared whole (ct.Sends, ct.Diff): a
// test that guards what is written says the whole object it expects, so
// a field added, dropped or changed by mistake fails it with a diff.

// sent is the one write of the last pass with verb of resource's object
// name; t fails unless there is exactly one.
func (f *fixture) sent(verb, resource, name string) k8stesting.Action {
	f.t.Helper()
	var out []k8stesting.Action
	// The clientsets' logs, not the API's: the DatabaseRole API stand-in
	// (playDatabaseRoleAPI) answers before the API does.
	for _, a := range ct.Writes(append(f.kube.Actions(), f.pg.Actions()...)) {
		if a.GetVerb() == verb && a.GetResource().Resource == resource && ct.Name(a) == name {
			out = append(out, a)
		}
	}
	if len(out) != 1 {
		f.t.Fatalf("%d writes %s %s %s, want one; the pass wrote %v", len(out), verb, resource, name, f.allWrites())
	}
	return out[0]
}

// expectSent fails t unless the last pass wrote resource's object name
// once with verb, sending want whole.
func (f *fixture) expectSent(verb, resource, name string, want any, opts ...ct.Option) {
	f.t.Helper()
	if msg := ct.Sends(want, opts...)(f.sent(verb, resource, name)); msg != "" {
		f.t.Errorf("%s %s %s: %s", verb, resource, name, msg)
	}
}

// expectStored fails t unless got, an object as the fake API stores it
// after the pass, is want whole.
func (f *fixture) expectStored(want, got any, opts ...ct.Option) {
	f.t.Helper()
	if d := ct.Diff(want, got, opts...); d != "" {
		f.t.Errorf("stored %T: %s", got, d)
	}
}

// What the passes of shop write, whole. randomPassword: a Secret's
// password is random: it must be there. wallClock: the conditions'
// transition times are the wall clock's (meta.SetStatusCondition), not
// the fixture's.
var (
	randomPassword = ct.Generated("data", "password")
	wallClock      = ct.Generated("status", "conditions", "*", "lastTransitionTime")
)

// shopRef is the controller reference shop puts on what it owns.
var shopRef = metav1.OwnerReference{APIVersion: "postgres.setpoint.dev/v1alpha1", Kind: "PostgresDatabase",
	Name: "shop", UID: "uid-shop", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}

func shopLabels(extra ...string) map[string]string {
	l := map[string]string{"app.kubernetes.io/managed-by": "setpoint", "postgres.setpoint.dev/database": "shop"}
	for i := 0; i+1 < len(extra); i += 2 {
		l[extra[i]] = extra[i+1]
	}
	return l
}

// shopSecret is the generated credential of role: basic-auth, reloaded
// by CNPG, controlled by shop.
func shopSecret(role string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-" + strings.ReplaceAll(role, "_", "-"), Namespace: ns,
			Labels: shopLabels("cnpg.io/reload", "true"), OwnerReferences: []metav1.OwnerReference{shopRef}},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte(role), "password": nil},
	}
}

// shopConfigMap is the connection info of database, its admin and rw
// roles, on cluster pg without a pooler.
func shopConfigMap(database string) *corev1.ConfigMap {
	prefix := "shop-" + strings.ReplaceAll(database, "_", "-")
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: prefix + "-config", Namespace: ns, Labels: shopLabels(),
			Annotations:     map[string]string{"postgres.setpoint.dev/deletion-policy": "Delete"},
			OwnerReferences: []metav1.OwnerReference{shopRef}},
		Data: map[string]string{
			"database": database, "host": "pg-rw.default.svc", "ro-host": "pg-ro.default.svc", "port": "5432",
			"sslmode": "verify-full", "ca-secret": "pg-server-ca", "ca-secret-key": "ca.crt",
			"admin-user": database + "_admin", "admin-secret": prefix + "-admin",
			"rw-user": database + "_rw", "rw-secret": prefix + "-rw",
		},
	}
}

// shopRole is the DatabaseRole of role as first created: reclaim retain
// while the database lives, its password from its Secret.
func shopRole(role string) *cnpgv1.DatabaseRole {
	secret := "shop-" + strings.ReplaceAll(role, "_", "-")
	return &cnpgv1.DatabaseRole{
		ObjectMeta: metav1.ObjectMeta{Name: "pg." + strings.TrimPrefix(secret, "shop-"), Namespace: ns,
			Labels: shopLabels(), OwnerReferences: []metav1.OwnerReference{shopRef}},
		Spec: cnpgv1.DatabaseRoleSpec{
			Cluster: cnpgv1.LocalObjectReference{Name: "pg"}, Name: role,
			Comment: "managed by setpoint for PostgresDatabase default/shop",
			Login:   true, Inherit: ptr.To(true), ConnectionLimit: ptr.To[int64](-1),
			PasswordSecret:            &cnpgv1.LocalObjectReference{Name: secret},
			DatabaseRoleReclaimPolicy: "retain",
		},
	}
}

// shopDatabaseApply is the server-side apply of the CNPG Database of
// orders: the fields setpoint owns, and no others.
func shopDatabaseApply() *cnpgac.DatabaseApplyConfiguration {
	return cnpgac.Database("shop-orders", ns).WithLabels(shopLabels()).
		WithOwnerReferences(shopRefApply()).
		WithSpec(cnpgac.DatabaseSpec().WithCluster(cnpgac.LocalObjectReference().WithName("pg")).
			WithName("orders").WithOwner("orders_admin").WithEnsure("present").WithDatabaseReclaimPolicy("delete"))
}

// shopStatus is shop, as runPass seeds it and the first pass finalizes
// it, with status st.
func shopStatus(st pgv1.PostgresDatabaseStatus) *pgv1.PostgresDatabase {
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	db.CreationTimestamp, db.ResourceVersion = metav1.Time{}, "" // the server's
	db.Finalizers = []string{Finalizer}
	db.Status = st
	return db
}

func condition(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, ObservedGeneration: 1, Reason: reason, Message: msg}
}

// readyStatus is the status of shop with orders applied by CNPG.
func readyStatus() pgv1.PostgresDatabaseStatus {
	st := pgv1.PostgresDatabaseStatus{Phase: pgv1.PhaseReady, ObservedGeneration: 1, Conditions: []metav1.Condition{
		condition("SecretsReady", metav1.ConditionTrue, "SecretsReady", "credentials of 1 database(s) in place"),
		condition("ClusterReady", metav1.ConditionTrue, "ClusterReady", `PostgresCluster "pg" is ready`),
		condition("ConfigMapsReady", metav1.ConditionTrue, "ConfigMapsReady", "connection info of 1 database(s) published"),
		condition("RolesReady", metav1.ConditionTrue, "RolesReconciled", "every role is applied by CloudNativePG"),
		condition("DatabasesReady", metav1.ConditionTrue, "DatabasesApplied", "CloudNativePG applied 1 database(s)"),
		condition("PrivilegesReady", metav1.ConditionTrue, "PrivilegesIsolated", "privileges granted on 1 database(s); no other role may connect; the last apply ran 10 statement(s)"),
		condition("Ready", metav1.ConditionTrue, "AllReady", "1 database(s) ready"),
	}, Databases: []pgv1.DatabaseStatus{{
		Name: "orders", Ready: true,
		AdminSecretRef: &pgv1.LocalObjectReference{Name: "shop-orders-admin"},
		RWSecretRef:    &pgv1.LocalObjectReference{Name: "shop-orders-rw"},
		ConfigMapRef:   &pgv1.LocalObjectReference{Name: "shop-orders-config"},
		Roles: []pgv1.RoleStatus{
			{Name: "orders_admin", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: &pgv1.LocalObjectReference{Name: "shop-orders-admin"}, Exists: true},
			{Name: "orders_rw", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: &pgv1.LocalObjectReference{Name: "shop-orders-rw"}, Exists: true},
		},
	}}}
	return st
}

// applyFailedStatus is readyStatus where the API server failed the CNPG
// Database's apply: DatabasesReady says why, what follows it is blocked.
func applyFailedStatus() pgv1.PostgresDatabaseStatus {
	st := readyStatus()
	const msg = "apply CNPG Database shop-orders: Internal error occurred: etcd is unavailable"
	st.Phase = pgv1.PhasePending
	st.Conditions[4] = condition("DatabasesReady", metav1.ConditionFalse, "DatabaseApplyFailed", msg)
	st.Conditions[5] = condition("PrivilegesReady", metav1.ConditionFalse, "Blocked", "waiting for DatabasesReady")
	st.Conditions[6] = condition("Ready", metav1.ConditionFalse, "DatabaseApplyFailed", "DatabasesReady: "+msg)
	st.Databases[0].Ready, st.Databases[0].Message = false, msg
	return st
}

// shopRoleApply is the server-side apply of the DatabaseRole of role with
// reclaim: every privilege-bearing field set, to what a database's role
// has, so that setpoint owns it.
func shopRoleApply(role, reclaim string) *cnpgac.DatabaseRoleApplyConfiguration {
	secret := "shop-" + strings.ReplaceAll(role, "_", "-")
	return cnpgac.DatabaseRole("pg."+strings.TrimPrefix(secret, "shop-"), ns).WithLabels(shopLabels()).
		WithOwnerReferences(shopRefApply()).
		WithSpec(cnpgac.DatabaseRoleSpec().
			WithSuperuser(false).WithCreateDB(false).WithCreateRole(false).WithReplication(false).WithBypassRLS(false).
			WithInherit(true).WithConnectionLimit(-1).
			WithCluster(cnpgac.LocalObjectReference().WithName("pg")).WithName(role).WithLogin(true).
			WithComment("managed by setpoint for PostgresDatabase default/shop").
			WithDatabaseRoleReclaimPolicy(reclaim).
			WithPasswordSecret(cnpgac.LocalObjectReference().WithName(secret)))
}

func shopRefApply() *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().WithAPIVersion("postgres.setpoint.dev/v1alpha1").
		WithKind("PostgresDatabase").WithName("shop").WithUID("uid-shop").
		WithController(true).WithBlockOwnerDeletion(true)
}

// released is obj of shop as a Retain deletion leaves it for the next
// object of the name: no owner, marked retained for shop on cluster pg.
func released[T metav1.Object](obj T) T {
	obj.SetOwnerReferences(nil)
	obj.GetLabels()["postgres.setpoint.dev/retained"] = "true"
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a["postgres.setpoint.dev/retained-for"] = "PostgresDatabase/shop"
	a["postgres.setpoint.dev/retained-cluster"] = "pg"
	obj.SetAnnotations(a)
	return obj
}

// releasedDatabase is the CNPG Database of orders as a Retain deletion
// leaves it: released, and reclaim retain, so that deleting it later
// does not drop the data.
func releasedDatabase() *cnpgv1.Database {
	return released(&cnpgv1.Database{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-orders", Namespace: ns, Labels: shopLabels()},
		Spec: cnpgv1.DatabaseSpec{Cluster: cnpgv1.LocalObjectReference{Name: "pg"}, Name: "orders", Owner: "orders_admin",
			Ensure: "present", DatabaseReclaimPolicy: "retain"},
		Status: cnpgv1.DatabaseStatus{Applied: ptr.To(true)}, // CNPG's
	})
}

// appliedRole is r as the fixture's CNPG leaves it once applied: its
// finalizer on, status applied.
func appliedRole(r *cnpgv1.DatabaseRole) *cnpgv1.DatabaseRole {
	r.Finalizers = []string{roleFinalizer}
	r.Status = cnpgv1.DatabaseRoleStatus{Applied: ptr.To(true)}
	return r
}

// shopBinding checks the create of role's Service Binding Secret of
// database on cluster pg (without the server CA's copy, without a
// pooler): the whole object but the random password, which must be the
// same in password and in uri.
func shopBinding(database, role string) func(k8stesting.Action) string {
	name := "shop-" + strings.ReplaceAll(role, "_", "-") + "-binding"
	return func(a k8stesting.Action) string {
		s, ok := ct.Object(a).(*corev1.Secret)
		if !ok {
			return "not a Secret"
		}
		password := string(s.Data["password"])
		if len(password) < 20 {
			return "no generated password"
		}
		want := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: shopLabels(), OwnerReferences: []metav1.OwnerReference{shopRef}},
			Type:       "servicebinding.io/postgresql",
			Data: map[string][]byte{
				"type": []byte("postgresql"), "provider": []byte("setpoint"),
				"host": []byte("pg-rw.default.svc"), "port": []byte("5432"), "database": []byte(database),
				"username": []byte(role), "password": []byte(password), "sslmode": []byte("verify-full"),
				"uri":      []byte("postgresql://" + role + ":" + password + "@pg-rw.default.svc:5432/" + database + "?sslmode=verify-full"),
				"jdbc-url": []byte("jdbc:postgresql://pg-rw.default.svc:5432/" + database + "?sslmode=verify-full"),
			},
		}
		return ct.Diff(want, s)
	}
}
