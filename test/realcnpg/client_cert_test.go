package realcnpg

import (
	"errors"
	"github.com/setpoint-dev/setpoint/test/testkit"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A database with authentication: certificate on real CNPG: real CNPG
// issues each role's client certificate (DatabaseRole clientCertificate,
// signed by the cluster's client CA) into the Secret the database's
// ConfigMap names, and Postgres, with setpoint's two pg_hba lines among
// CNPG's own, logs the roles in by certificate and no password over TLS
// and refuses their passwords.
func TestClientCertificateLoginOnRealCNPG(t *testing.T) {
	ns := kit.Namespace(t)
	smallClass(t, "small-"+ns)
	createCluster(t, ns, "shop", "small-"+ns)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", Authentication: pgv1.AuthenticationCertificate})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)

	cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "app-orders-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := cm.Data
	if d["authentication"] != "certificate" || d["admin-cert-secret"] == "" || d["rw-cert-secret"] == "" {
		t.Fatalf("ConfigMap data %v: no certificate Secrets named", d)
	}
	admin := connectByCert(t, ns, d["admin-user"], d["admin-cert-secret"])
	if _, err := admin.Exec(t.Context(), "CREATE TABLE items (id bigserial PRIMARY KEY, name text)"); err != nil {
		t.Fatalf("%s by certificate: CREATE TABLE: %v", d["admin-user"], err)
	}
	rw := connectByCert(t, ns, d["rw-user"], d["rw-cert-secret"])
	if _, err := rw.Exec(t.Context(), "INSERT INTO items (name) VALUES ('by certificate')"); err != nil {
		t.Fatalf("%s by certificate: INSERT: %v", d["rw-user"], err)
	}
	var dn string
	if err := rw.QueryRow(t.Context(), "SELECT coalesce(client_dn, '') FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&dn); err != nil || dn != "/CN=orders_rw" {
		t.Errorf("pg_stat_ssl client_dn = %q (%v), want the role's certificate", dn, err)
	}

	// The password Secret setpoint still generates opens nothing: the
	// certificate group's hostssl line comes before CNPG's password line.
	sec, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "app-orders-rw", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var refused *pgconn.PgError
	if _, err := kit.Login(t, ns, "shop", "orders", "orders_rw", string(sec.Data["password"])); !errors.As(err, &refused) || refused.Code != "28000" {
		t.Errorf("orders_rw by password: %v, want refused by pg_hba (28000)", err)
	}
	// A certificate logs in only as the role it was issued for.
	if _, err := kit.LoginByCert(t, ns, d["admin-user"], d["rw-cert-secret"], shopCert(ns)); err == nil {
		t.Error("orders_rw's certificate logged in as orders_admin")
	}

	applicationsCannotMint(t, ns, d)

	// kubectl setpoint psql by certificate: the port-forward, the
	// certificate and key from CNPG's Secret in libpq's files, no password.
	out, errOut, err := kubectlSetpoint(t, ns, "psql", "app", "--role", "rw", "--",
		"-XAtc", "select current_user || ' ' || (select count(*) from items) || ' ' || (select client_dn from pg_stat_ssl where pid = pg_backend_pid())")
	if err != nil {
		t.Fatalf("kubectl setpoint psql by certificate: %v\n%s", err, errOut)
	}
	if got := strings.TrimSpace(out); got != "orders_rw 1 /CN=orders_rw" {
		t.Errorf("psql by certificate printed %q, want \"orders_rw 1 /CN=orders_rw\"", got)
	}
	if _, errOut, err := kubectlSetpoint(t, ns, "conn", "app", "--role", "rw"); err != nil || !strings.Contains(errOut, d["rw-cert-secret"]) {
		t.Errorf("kubectl setpoint conn by certificate: %v; stderr %q, want the certificate Secret named", err, errOut)
	}

	t.Run("a rotated client CA moves every certificate login", func(t *testing.T) { rotateClientCA(t, ns, d) })
}

// shopCert is how an application logs in by certificate to database
// orders of cluster shop, through its -rw Service (kit.CertSessions).
func shopCert(ns string) testkit.CertConfig { return kit.CertSessions(ns, "shop", "orders") }

// connectByCert logs in through -rw as user with the certificate and key
// of Secret certSecret, and no password.
func connectByCert(t *testing.T, ns, user, certSecret string) *pgx.Conn {
	t.Helper()
	return kit.ConnectByCert(t, ns, user, certSecret, shopCert(ns))
}

// loginWithCert logs in through -rw to database orders as user with a
// certificate and key in hand, and no password.
func loginWithCert(t *testing.T, ns, user string, crt, key []byte) (*pgx.Conn, error) {
	t.Helper()
	return kit.LoginWithCert(t, shopCert(ns), user, crt, key)
}
