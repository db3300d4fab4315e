package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/setpoint-dev/setpoint/test/testkit"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// libpqLoginByCert logs in the way a libpq application given the
// database's ConfigMap and its role's certificate Secret would: files for
// sslcert, sslkey and sslrootcert, sslmode from the ConfigMap, and no
// password at all. Only the TCP dial goes through the host map.
func libpqLoginByCert(t *testing.T, ns string, cm map[string]string, user, certSecret string) (*pgx.Conn, error) {
	t.Helper()
	ca := kit.Secret(t, ns, cm["ca-secret"]).Data[cm["ca-secret-key"]]
	return kit.LoginByCert(t, ns, user, certSecret, libpqCertConfig(t.TempDir(), cm, ca))
}

// libpqLoginWithCert is libpqLoginByCert with a certificate and key in
// hand: one an application kept from earlier, or one forged.
func libpqLoginWithCert(t *testing.T, ns string, cm map[string]string, user string, crt, key []byte) (*pgx.Conn, error) {
	t.Helper()
	ca := kit.Secret(t, ns, cm["ca-secret"]).Data[cm["ca-secret-key"]]
	return kit.LoginWithCert(t, libpqCertConfig(t.TempDir(), cm, ca), user, crt, key)
}

// libpqCertConfig is this tier's testkit.CertConfig: certConfig, with the
// files in dir and the server verified with ca.
func libpqCertConfig(dir string, cm map[string]string, ca []byte) testkit.CertConfig {
	return func(_ context.Context, user string, crt, key []byte) (*pgx.ConnConfig, error) {
		return certConfig(dir, cm, user, crt, key, ca)
	}
}

// certConfig is how a libpq application given the ConfigMap cm and a
// certificate connects: files in dir for sslcert, sslkey and sslrootcert,
// sslmode from the ConfigMap, no password. Only the TCP dial goes through
// the host map.
func certConfig(dir string, cm map[string]string, user string, crt, key, ca []byte) (*pgx.ConnConfig, error) {
	files := map[string][]byte{"tls.crt": crt, "tls.key": key, "ca.crt": ca}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%s dbname=%s user=%s sslmode=%s sslrootcert=%s sslcert=%s sslkey=%s",
		cm["host"], cm["port"], cm["database"], user, cm["sslmode"],
		filepath.Join(dir, "ca.crt"), filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")))
	if err != nil {
		return nil, err
	}
	if cfg.Password != "" {
		return nil, errors.New("a password crept into the connection")
	}
	hosts := postgres.NewHostMap(hostMap)
	cfg.LookupFunc = func(_ context.Context, h string) ([]string, error) { return []string{h}, nil }
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		to, err := hosts.Resolve(addr)
		if err != nil {
			return nil, err
		}
		var d net.Dialer
		return d.DialContext(ctx, network, to)
	}
	return cfg, nil
}

// A database with authentication: certificate is Ready once CloudNativePG
// issued its roles' certificates; the application logs in with the
// certificate and key of the Secret its ConfigMap names, and no password,
// as <db>_rw and writes a row into a table <db>_admin (by certificate too)
// created. The roles' passwords are refused over TLS, a certificate logs
// in only as its own role, and the method cannot change.
func TestClientCertificateLogin(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		roles, err := pg.CNPGV1().DatabaseRoles(ns).List(context.WithoutCancel(t.Context()), metav1.ListOptions{})
		if err != nil {
			return
		}
		for _, r := range roles.Items {
			t.Logf("DatabaseRole %s: generation %d status %+v clientCertificate %+v", r.Name, r.Generation, r.Status, r.Status.ClientCertificate)
		}
	})
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true, Authentication: pgv1.AuthenticationCertificate})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)

	cmObj, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "app-orders-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm := cmObj.Data
	if cm["authentication"] != "certificate" || cm["rw-cert-secret"] != "shop.orders-rw-client-cert" ||
		cm["admin-cert-secret"] != "shop.orders-admin-client-cert" || cm["ro-cert-secret"] != "shop.orders-ro-client-cert" || cm["rw-secret"] != "" {
		t.Errorf("ConfigMap = %v", cm)
	}

	admin, err := libpqLoginByCert(t, ns, cm, cm["admin-user"], cm["admin-cert-secret"])
	if err != nil {
		t.Fatalf("%s by certificate: %v", cm["admin-user"], err)
	}
	execSQL(t, admin, "CREATE TABLE items (id bigserial PRIMARY KEY, name text)")
	rw, err := libpqLoginByCert(t, ns, cm, cm["rw-user"], cm["rw-cert-secret"])
	if err != nil {
		t.Fatalf("%s by certificate: %v", cm["rw-user"], err)
	}
	execSQL(t, rw, "INSERT INTO items (name) VALUES ('by certificate')")
	if who := queryString(t, rw, "SELECT current_user || ' ' || (SELECT count(*) FROM items)"); who != "orders_rw 1" {
		t.Errorf("rw sees %q, want orders_rw and its row", who)
	}
	if ssl := queryString(t, rw, "SELECT ssl::text || ' ' || coalesce(client_dn, '') FROM pg_stat_ssl WHERE pid = pg_backend_pid()"); ssl != "true /CN=orders_rw" {
		t.Errorf("pg_stat_ssl = %q, want TLS with the role's certificate", ssl)
	}

	// The password Secret (still generated) opens nothing over TLS.
	sec, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "app-orders-rw", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var refused *pgconn.PgError
	if _, err := kit.Login(t, ns, "shop", "orders", "orders_rw", string(sec.Data["password"])); !errors.As(err, &refused) || refused.Code != "28000" {
		t.Errorf("orders_rw by password: %v, want refused (28000)", err)
	}
	// A certificate logs in only as the role it was issued for.
	if _, err := libpqLoginByCert(t, ns, cm, cm["admin-user"], cm["rw-cert-secret"]); err == nil {
		t.Error("orders_rw's certificate logged in as orders_admin")
	}

	// What setpoint asked of CloudNativePG.
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hba := cl.Spec.PostgresConfiguration.PgHBA; len(hba) < 2 || hba[0] != "hostssl all +setpoint_cert_auth all cert" {
		t.Errorf("CNPG Cluster pg_hba = %q", hba)
	}
	r, err := pg.CNPGV1().DatabaseRoles(ns).Get(t.Context(), "shop.orders-rw", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Spec.ClientCertificate == nil || !slices.Equal(r.Spec.InRoles, []string{"setpoint_cert_auth"}) ||
		r.Status.ClientCertificate == nil || r.Status.ClientCertificate.Expiration == "" {
		t.Errorf("DatabaseRole spec %+v status %+v", r.Spec, r.Status.ClientCertificate)
	}

	// No application can mint a login: the CA it is pointed to holds no
	// key, and the server CA's key signs nothing Postgres accepts.
	libpqCannotMint(t, ns, cm)
	if r, err := certificateReason(t.Context(), ns); err != nil || r != pgv1.ReasonClientCAIsolated {
		t.Errorf("CertificatesReady: %q, %v; want %s", r, err, pgv1.ReasonClientCAIsolated)
	}

	// Set when the database is added.
	d, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Spec.Databases[0].Authentication = pgv1.AuthenticationPassword
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), d, metav1.UpdateOptions{}); err == nil ||
		!strings.Contains(err.Error(), "authentication is immutable") {
		t.Errorf("authentication changed to password: %v", err)
	}
}
