package database

import (
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// testCA is a PEM certificate block; its content is never parsed here.
const testCA = "-----BEGIN CERTIFICATE-----\nMIIBdGVzdA==\n-----END CERTIFICATE-----\n"

// serverCA is the cluster controller's copy of pg's server CA.
func serverCA(data string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "pg-server-ca", Namespace: ns,
		Labels:          ownership.ManagedLabels(ownership.ClusterLabel, "pg"),
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "postgres.setpoint.dev/v1alpha1", Kind: "PostgresCluster", Name: "pg", UID: "uid-pg", Controller: ptr.To(true)}}},
		Data: map[string][]byte{"ca.crt": []byte(data)}}
}

func poolingCluster() *pgv1.PostgresCluster {
	pc := readyCluster()
	pc.Status.ConnectionPoolerStatus = &pgv1.ConnectionPoolerStatus{Enabled: true}
	return pc
}

// parseBinding reads s as the Service Binding specification (1.0) says a
// workload reads its projection (testkit.ReadBinding, the e2e tiers'
// reader too), fails t where s breaks it, and returns the entries.
func parseBinding(t *testing.T, s *corev1.Secret) map[string]string {
	t.Helper()
	b, err := testkit.ReadBinding(s)
	if err != nil {
		t.Errorf("%s: %v", s.Name, err)
	}
	return b
}

// Every role that logs in gets a binding Secret a workload reads as the
// specification says: its credential's password, the server's CA, the
// pooler's URI while the cluster pools; and a jdbc-url that carries all
// a JDBC driver needs to verify the server.
func TestBindingSecretsFollowTheSpecification(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true,
		Roles: []pgv1.DatabaseRoleSpec{{Name: "report", Login: ptr.To(true)}, {Name: "group"}}})
	f := newFixture(t, append(clusterSecrets(), serverCA(testCA)), []runtime.Object{poolingCluster(), db})
	settle(t, f, "shop")
	for _, role := range []string{"admin", "rw", "ro", "report"} {
		b := f.secret("shop-orders-" + role + "-binding")
		e := parseBinding(t, b)
		if !ownership.IsControlledBy(b, "uid-shop") || b.Labels[ownership.ManagedByLabel] != "setpoint" || b.Labels[ownership.DatabaseLabel] != "shop" {
			t.Errorf("%s: not marked ours: %+v", b.Name, b.ObjectMeta)
		}
		if want := string(f.secret("shop-orders-" + role).Data["password"]); e["password"] != want || len(want) < 20 {
			t.Errorf("%s: password is not the credential's", b.Name)
		}
		if e["username"] != "orders_"+role || e["database"] != "orders" || e["host"] != "pg-rw.default.svc" || e["sslmode"] != "verify-full" {
			t.Errorf("%s: entries %v", b.Name, e)
		}
		if e["ca.crt"] != testCA || e["sslrootcert"] != "ca.crt" {
			t.Errorf("%s: CA entries ca.crt %q sslrootcert %q", b.Name, e["ca.crt"], e["sslrootcert"])
		}
		if p, err := url.Parse(e["pooler-uri"]); err != nil || p.Hostname() != "pg-pooler-rw.default.svc" || p.Path != "/orders" {
			t.Errorf("%s: pooler-uri %q", b.Name, e["pooler-uri"])
		}
		rest, ok := strings.CutPrefix(e["jdbc-url"], "jdbc:")
		j, err := url.Parse(rest)
		if !ok || err != nil || j.Scheme != "postgresql" || j.Host != "pg-rw.default.svc:5432" || j.Path != "/orders" || j.User != nil ||
			j.Query().Get("sslmode") != "verify-full" || j.Query().Get("sslfactoryarg") != testCA ||
			j.Query().Get("sslfactory") != "org.postgresql.ssl.SingleCertValidatingFactory" {
			t.Errorf("%s: jdbc-url %q", b.Name, e["jdbc-url"])
		}
	}
	// A role without login has no password, and no binding.
	if _, err := f.kube.CoreV1().Secrets(ns).Get(t.Context(), "shop-orders-group-binding", metav1.GetOptions{}); err == nil {
		t.Error("a role without login got a binding Secret")
	}
	// Converged: nothing to write.
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); len(w) != 0 {
		t.Errorf("a converged pass wrote %v", w)
	}

	// CNPG renews the server CA: the bindings carry the new one.
	renewed := strings.Replace(testCA, "dGVzdA==", "cmVuZXdlZA==", 1)
	if _, err := f.kube.CoreV1().Secrets(ns).Update(t.Context(), serverCA(renewed), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if got := string(f.secret("shop-orders-rw-binding").Data["ca.crt"]); got != renewed {
		t.Errorf("after the CA's renewal the binding holds %q", got)
	}
}

// A Secret of a binding's name that is not setpoint's is never written:
// the database says so, naming it, and the other roles' bindings are
// written all the same.
func TestForeignBindingSecretIsRefused(t *testing.T) {
	t.Parallel()
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-orders-rw-binding", Namespace: ns},
		Type: "servicebinding.io/postgresql", Data: map[string][]byte{"password": []byte("theirs")}}
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, append(clusterSecrets(), foreign), []runtime.Object{readyCluster(), db})
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
	c := cond(t, f.db("shop"), pgv1.ConditionConfigMapsReady)
	if c.Status != metav1.ConditionFalse || c.Reason != pgv1.ReasonBindingSecretConflict || !strings.Contains(c.Message, `"shop-orders-rw-binding"`) {
		t.Errorf("ConfigMapsReady = %+v", c)
	}
	if got := f.secret("shop-orders-rw-binding"); string(got.Data["password"]) != "theirs" || len(got.OwnerReferences) != 0 {
		t.Errorf("the foreign Secret was written: %+v", got)
	}
	if f.secret("shop-orders-admin-binding") == nil {
		t.Error("the admin role's binding was not written")
	}
}

// A certificate role's binding carries the certificate CNPG issued it,
// no password and no pooler; CNPG's Secret is read once per certificate
// (at issue, at renewal), not on every pass.
func TestCertificateRoleBindingCarriesItsCertificate(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", Authentication: pgv1.AuthenticationCertificate})
	f := newFixture(t, append(clusterSecrets(), serverCA(testCA)), []runtime.Object{poolingCluster(), db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.applyRoles()
	f.issueCert("pg.orders-rw")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	e := parseBinding(t, f.secret("shop-orders-rw-binding"))
	if e["tls.crt"] != "CERT pg.orders-rw" || e["tls.key"] != "KEY pg.orders-rw" || e["sslcert"] != "tls.crt" || e["sslkey"] != "tls.key" {
		t.Errorf("certificate entries wrong; the binding has %v", slices.Sorted(maps.Keys(e))) // names only: values hold keys
	}
	if _, has := e["password"]; has || e["pooler-uri"] != "" {
		t.Errorf("a certificate role's binding has a password or a pooler; its entries: %v", slices.Sorted(maps.Keys(e)))
	}
	if u, _ := url.Parse(e["uri"]); u == nil || func() bool { _, set := u.User.Password(); return set }() {
		t.Error("the certificate role's uri carries a password") // never printed
	}
	// Not issued yet for admin: its binding waits without a certificate.
	if a := f.secret("shop-orders-admin-binding"); len(a.Data["tls.crt"]) != 0 {
		t.Errorf("admin binding has a certificate before CNPG issued one")
	}

	// The next pass reads no certificate Secret.
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	for _, a := range f.kube.Actions() {
		if a.GetVerb() == "get" && a.GetResource().Resource == "secrets" {
			t.Errorf("a pass with nothing renewed read a Secret: %v", a)
		}
	}
	// A renewal: new expiration, new certificate, copied.
	r := f.role("pg.orders-rw")
	st := r.Status
	st.ClientCertificate.Expiration = "2027-06-01T00:00:00Z"
	f.setRoleStatus(r, st)
	s := f.secret("pg.orders-rw-client-cert")
	s.Data["tls.crt"] = []byte("RENEWED")
	if _, err := f.kube.CoreV1().Secrets(ns).Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if got := f.secret("shop-orders-rw-binding"); string(got.Data["tls.crt"]) != "RENEWED" || got.Annotations[certExpirationAnnotation] != "2027-06-01T00:00:00Z" {
		t.Errorf("after the renewal: %q, %v", got.Data["tls.crt"], got.Annotations)
	}
}

// The binding goes with its role: readOnlyRole off deletes the ro role's
// binding with its credential (Delete); a role x_binding beside a role x
// would share a Secret and is refused.
func TestBindingGoesWithItsRole(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})
	f := newFixture(t, append(clusterSecrets(), serverCA(testCA)), []runtime.Object{readyCluster(), db})
	converge(t, f, "shop")
	d := f.db("shop")
	d.Spec.Databases[0].ReadOnlyRole = false
	d.Generation++
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		f.applyRoles()
	}
	for _, s := range []string{"shop-orders-ro", "shop-orders-ro-binding"} {
		if _, err := f.kube.CoreV1().Secrets(ns).Get(t.Context(), s, metav1.GetOptions{}); err == nil {
			t.Errorf("Secret %s kept after the role was removed", s)
		}
	}
	if f.secret("shop-orders-rw-binding") == nil {
		t.Error("rw binding gone")
	}

	clash := newDatabase("clash", pgv1.DatabaseSpec{Name: "orders", Roles: []pgv1.DatabaseRoleSpec{
		{Name: "report", Login: ptr.To(true)}, {Name: "report_binding", Login: ptr.To(true)}}})
	if err := validate(clash); err == nil || !strings.Contains(err.Error(), `"clash-orders-report-binding"`) {
		t.Errorf("validate = %v, want the shared Secret named", err)
	}
}
