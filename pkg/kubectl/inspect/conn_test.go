package inspect

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func connObjects() (*pgv1.PostgresDatabase, *corev1.ConfigMap, *corev1.Secret) {
	db := database(pgv1.PhaseReady)
	db.Spec.Databases[0].ReadOnlyRole = false
	db.UID = "db-uid"
	cmMeta := meta("shop-app-order-items-config", 0)
	cmMeta.OwnerReferences = []metav1.OwnerReference{{Kind: "PostgresDatabase", Name: db.Name, UID: db.UID, Controller: ptr(true)}}
	cm := &corev1.ConfigMap{ObjectMeta: cmMeta, Data: map[string]string{
		"host": "shop-rw.default.svc", "ro-host": "shop-ro.default.svc", "port": "5432", "database": "order_items",
		"admin-user": "order_items_admin", "rw-user": "order_items_rw",
		"admin-secret": "shop-app-order-items-admin", "rw-secret": "shop-app-order-items-rw",
		"ca-secret": "shop-ca", "ca-secret-key": "ca.crt", "sslmode": "verify-full",
		"pooler-host": "shop-pooler-rw.default.svc",
	}}
	sec := &corev1.Secret{ObjectMeta: meta("shop-app-order-items-rw", 0),
		Data: map[string][]byte{"username": []byte("order_items_rw"), "password": []byte("p@ss/wörd")}}
	return db, cm, sec
}

func TestConnectionWithoutPassword(t *testing.T) {
	db, cm, sec := connObjects()
	c, err := reader(db, cm, sec).Connection(t.Context(), "shop-app", ConnectionOptions{Role: "rw"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.URI(), "postgresql://order_items_rw@shop-rw.default.svc:5432/order_items?sslmode=verify-full"; got != want {
		t.Fatalf("URI %s, want %s", got, want)
	}
	if c.Password != "" {
		t.Fatal("password read without being asked for")
	}
}

func TestConnectionShowPasswordEscapes(t *testing.T) {
	db, cm, sec := connObjects()
	c, err := reader(db, cm, sec).Connection(t.Context(), "shop-app", ConnectionOptions{Role: "rw", Pooler: true, WithPassword: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "postgresql://order_items_rw:p%40ss%2Fw%C3%B6rd@shop-pooler-rw.default.svc:5432/order_items?sslmode=verify-full"
	if got := c.URI(); got != want {
		t.Fatalf("URI %s, want %s", got, want)
	}
}

// A role the database does not have, or a role that is not a kind, is an
// error that says so; the password never appears in an error.
func TestConnectionErrors(t *testing.T) {
	db, cm, sec := connObjects()
	r := reader(db, cm, sec)
	for role, want := range map[string]string{"ro": "readOnlyRole", "owner": "no such login role; it has [admin rw]"} {
		_, err := r.Connection(t.Context(), "shop-app", ConnectionOptions{Role: role, WithPassword: true})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "p@ss") {
			t.Errorf("role %s: error %v, want one with %q", role, err, want)
		}
	}
	_, err := r.Connection(t.Context(), "shop-app", ConnectionOptions{Role: "rw", Database: "nope"})
	if err == nil || !strings.Contains(err.Error(), `no database "nope"`) {
		t.Errorf("unknown database: %v", err)
	}
}

// A database that logs in by certificate: the connection names the role's
// certificate Secret, reads no password (none opens it), refuses the
// pooler with the reason, and the certificate and key come from CNPG's
// Secret.
func TestConnectionByCertificate(t *testing.T) {
	db, cm, _ := connObjects()
	for _, k := range []string{"admin-secret", "rw-secret", "pooler-host"} {
		delete(cm.Data, k)
	}
	cm.Data["authentication"] = "certificate"
	cm.Data["admin-cert-secret"], cm.Data["rw-cert-secret"] = "shop.order-items-admin-client-cert", "shop.order-items-rw-client-cert"
	cert := &corev1.Secret{ObjectMeta: meta("shop.order-items-rw-client-cert", 0),
		Data: map[string][]byte{"tls.crt": []byte("CERT"), "tls.key": []byte("KEY")}}
	r := reader(db, cm, cert)
	c, err := r.Connection(t.Context(), "shop-app", ConnectionOptions{Role: "rw", WithPassword: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.CertSecret != "shop.order-items-rw-client-cert" || c.Secret != "" || c.Password != "" {
		t.Fatalf("connection %+v: want the certificate Secret and no password", c)
	}
	if got, key, err := r.ClientCertificate(t.Context(), c); err != nil || string(got) != "CERT" || string(key) != "KEY" {
		t.Fatalf("certificate %q, key %q, %v", got, key, err)
	}
	if _, err := r.Connection(t.Context(), "shop-app", ConnectionOptions{Role: "rw", Pooler: true}); err == nil || !strings.Contains(err.Error(), "PgBouncer logs in to Postgres with passwords") {
		t.Errorf("--pooler by certificate: %v", err)
	}
	db.Spec.Databases[0].ReadOnlyRole = true // declared, its certificate not published yet
	if _, err := reader(db, cm, cert).Connection(t.Context(), "shop-app", ConnectionOptions{Role: "ro"}); err == nil || !strings.Contains(err.Error(), "ro-cert-secret") {
		t.Errorf("a role without a certificate: %v", err)
	}
	if _, _, err := r.ClientCertificate(t.Context(), &Connection{CertSecret: "shop.order-items-admin-client-cert"}); err == nil {
		t.Error("a certificate Secret not issued yet read as one")
	}
}

// A database refused with RoleExists has its ConfigMap, and a role that is
// not setpoint's: no connection string unless asked for anyway.
func TestConnectionOfADatabaseNotReadyIsRefused(t *testing.T) {
	db, cm, sec := connObjects()
	db.Status.Phase = pgv1.PhaseFailed
	db.Status.Conditions = []metav1.Condition{{Type: pgv1.ConditionReady, Status: metav1.ConditionFalse, Reason: "RoleExists",
		Message: "roles: role order_items_rw exists and was not created by setpoint"}}
	r := reader(db, cm, sec)
	_, err := r.Connection(t.Context(), "shop-app", ConnectionOptions{Role: "rw"})
	if !errors.Is(err, ErrNotUsable) || !strings.Contains(err.Error(), "is Failed (RoleExists: roles: role order_items_rw exists") ||
		!strings.Contains(err.Error(), "--anyway") {
		t.Fatalf("Connection of a Failed database: %v, want ErrNotUsable naming the phase and the reason", err)
	}
	c, err := r.Connection(t.Context(), "shop-app", ConnectionOptions{Role: "rw", Anyway: true})
	if err != nil || c.User != "order_items_rw" {
		t.Fatalf("Connection anyway: %+v, %v", c, err)
	}
}

// An extra login role of spec.roles connects by its name, from its keys
// in the ConfigMap (<name>-user, <name>-secret); a group, without login,
// has no connection.
func TestConnectionOfAnExtraRole(t *testing.T) {
	db, cm, _ := connObjects()
	db.Spec.Databases[0].Roles = []pgv1.DatabaseRoleSpec{{Name: "migrator", Login: ptr(true)}, {Name: "analytics"}}
	cm.Data["migrator-user"], cm.Data["migrator-secret"] = "order_items_migrator", "shop-app-order-items-migrator"
	sec := &corev1.Secret{ObjectMeta: meta("shop-app-order-items-migrator", 0),
		Data: map[string][]byte{"username": []byte("order_items_migrator"), "password": []byte("m1gr@tor")}}
	r := reader(db, cm, sec)
	c, err := r.Connection(t.Context(), "shop-app", ConnectionOptions{Role: "migrator", WithPassword: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.User != "order_items_migrator" || c.Secret != "shop-app-order-items-migrator" || c.Password != "m1gr@tor" {
		t.Fatalf("connection %+v", c)
	}
	if _, err := r.Connection(t.Context(), "shop-app", ConnectionOptions{Role: "analytics"}); err == nil ||
		!strings.Contains(err.Error(), "no such login role; it has [admin rw migrator]") {
		t.Errorf("a group: %v", err)
	}
	// Declared, not yet published (its Secret not resolved): the ConfigMap says so.
	delete(cm.Data, "migrator-secret")
	if _, err := reader(db, cm, sec).Connection(t.Context(), "shop-app", ConnectionOptions{Role: "migrator"}); err == nil || !strings.Contains(err.Error(), "migrator-secret") {
		t.Errorf("unpublished: %v", err)
	}
}
