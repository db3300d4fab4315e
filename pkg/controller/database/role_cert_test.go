package database

import (
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

var certObjects = []string{"pg.orders-admin", "pg.orders-rw", "pg.orders-ro"}

// issueCert plays CNPG's operator for DatabaseRole obj: the Secret
// <obj>-client-cert controlled by the object, and status.clientCertificate
// with its expiration.
func (f *fixture) issueCert(obj string) {
	f.t.Helper()
	r := f.role(obj)
	if r.UID == "" {
		r.UID = types.UID("uid-" + obj)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: obj + "-client-cert", Namespace: ns,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "postgresql.cnpg.io/v1", Kind: "DatabaseRole", Name: obj, UID: r.UID, Controller: ptr.To(true)}}},
		Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": []byte("CERT " + obj), "tls.key": []byte("KEY " + obj)}}
	if _, err := f.kube.CoreV1().Secrets(ns).Create(f.t.Context(), s, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	st := r.Status
	st.ClientCertificate = &cnpgv1.ClientCertificateState{Expiration: "2027-03-01T00:00:00Z"}
	f.setRoleStatus(r, st)
}

// A database with authentication: certificate has DatabaseRoles that ask
// CNPG for a client certificate and join the cluster's certificate group
// (and nothing else changes); its roles are ready only once CNPG issued
// the certificates, with CNPG's message while it cannot. The ConfigMap
// names CNPG's Secrets instead of the password Secrets, and the grants log
// in as <db>_admin with its certificate, no password.
func TestCertificateDatabaseRolesWaitForTheirCertificates(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true, Authentication: pgv1.AuthenticationCertificate})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"orders_admin", "orders_rw", "orders_ro"} {
		want := shopRole(role) // and a certificate, in the certificate group
		want.Spec.ClientCertificate = &cnpgv1.ClientCertificateConfiguration{Enabled: ptr.To(true)}
		want.Spec.InRoles = []string{"setpoint_cert_auth"}
		f.expectSent("create", "databaseroles", want.Name, want)
	}
	f.applyRoles()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if c := cond(t, f.db("shop"), pgv1.ConditionRolesReady); c.Reason != pgv1.ReasonRoleCertificatePending || !strings.Contains(c.Message, "pg.orders-admin-client-cert") {
		t.Fatalf("RolesReady = %+v, want the wait for CNPG's certificate", c)
	}
	// Applied: Postgres has the roles while the certificates are pending
	// (a removal must drop them).
	roles := f.db("shop").Status.Databases[0].Roles
	if len(roles) != 3 {
		t.Fatalf("status roles = %+v, want the three of orders", roles)
	}
	for _, r := range roles {
		if r.Ensure == pgv1.RoleEnsurePresent && !r.Exists {
			t.Errorf("role %s recorded absent while only its certificate is pending", r.Name)
		}
	}

	// CNPG cannot issue one: its message is the user's clue.
	r := f.role("pg.orders-rw")
	st := r.Status
	st.ClientCertificate = &cnpgv1.ClientCertificateState{Message: `client CA secret "pg-ca" has no private key`}
	f.setRoleStatus(r, st)
	f.issueCert("pg.orders-admin")
	f.issueCert("pg.orders-ro")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	c := cond(t, f.db("shop"), pgv1.ConditionRolesReady)
	if c.Reason != pgv1.ReasonRoleCertificateNotIssued || !strings.Contains(c.Message, `client CA secret "pg-ca" has no private key`) || !strings.Contains(c.Message, "orders_rw") {
		t.Fatalf("RolesReady = %+v, want CNPG's message", c)
	}

	// Issued: the databases step, then the grants by certificate.
	st.ClientCertificate = &cnpgv1.ClientCertificateState{Expiration: "2027-03-01T00:00:00Z"}
	f.setRoleStatus(f.role("pg.orders-rw"), st)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.markApplied(naming.Database("shop", "orders").CNPG, true, "")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if got := f.db("shop"); got.Status.Phase != pgv1.PhaseReady {
		t.Fatalf("phase %s: %+v", got.Status.Phase, got.Status.Conditions)
	}
	last := f.sql.execs[len(f.sql.execs)-1].target
	if last.User != "orders_admin" || last.Password != "" || string(last.ClientCert) != "CERT pg.orders-admin" || string(last.ClientKey) != "KEY pg.orders-admin" {
		t.Errorf("grants ran as %s with password %v and certificate %q", last.User, last.Password != "", last.ClientCert)
	}
	cm, err := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"authentication": "certificate", "admin-cert-secret": "pg.orders-admin-client-cert",
		"rw-cert-secret": "pg.orders-rw-client-cert", "ro-cert-secret": "pg.orders-ro-client-cert", "rw-user": "orders_rw", "sslmode": "verify-full"}
	for k, v := range want {
		if cm.Data[k] != v {
			t.Errorf("ConfigMap %s = %q, want %q", k, cm.Data[k], v)
		}
	}
	for _, k := range []string{"admin-secret", "rw-secret", "ro-secret"} {
		if _, ok := cm.Data[k]; ok {
			t.Errorf("ConfigMap names the password Secret %s = %q, which pg_hba refuses", k, cm.Data[k])
		}
	}
}

// A key is presented only from the Secret CNPG issued for our
// DatabaseRole: a same-named Secret controlled by anything else is not
// used, and the grants wait.
func TestCertificateGrantsUseOnlyCNPGsSecretOfOurRole(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", Authentication: pgv1.AuthenticationCertificate})
	planted := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "pg.orders-admin-client-cert", Namespace: ns},
		Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": []byte("THEIRS"), "tls.key": []byte("THEIRS")}}
	f := newFixture(t, append(clusterSecrets(), planted), []runtime.Object{readyCluster(), db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.applyRoles()
	for _, obj := range certObjects[:2] {
		r := f.role(obj)
		st := r.Status
		st.ClientCertificate = &cnpgv1.ClientCertificateState{Expiration: "2027-03-01T00:00:00Z"}
		f.setRoleStatus(r, st)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.markApplied(naming.Database("shop", "orders").CNPG, true, "")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	c := cond(t, f.db("shop"), pgv1.ConditionPrivilegesReady)
	if c.Status == metav1.ConditionTrue || c.Reason != pgv1.ReasonAdminUnavailable || !strings.Contains(c.Message, "not issued by CloudNativePG") {
		t.Errorf("PrivilegesReady = %+v, want the wait for CNPG's own Secret", c)
	}
	if len(f.sql.execs) != 0 {
		t.Errorf("grants ran with a Secret not CNPG's: %+v", f.sql.execs[0].target.User)
	}
}
