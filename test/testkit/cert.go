package testkit

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/pki"
)

// CertConfig is how a tier's application logs in as user with a client
// certificate and key in hand, and no password: the connection
// configuration, which the kit dials. The stand-in tier configures it as
// a libpq application given the database's ConfigMap does (files,
// sslmode from the ConfigMap); the real tier through its Sessions
// (CertSessions). An error here is the tier's, not Postgres's refusal.
type CertConfig func(ctx context.Context, user string, crt, key []byte) (*pgx.ConnConfig, error)

// CertSessions is CertConfig through the kit's Sessions: database of
// cluster through its -rw Service, the certificate presented in TLS.
func (k Kit) CertSessions(ns, cluster, database string) CertConfig {
	return func(ctx context.Context, user string, crt, key []byte) (*pgx.ConnConfig, error) {
		pair, err := tls.X509KeyPair(crt, key)
		if err != nil {
			return nil, fmt.Errorf("certificate: %w", err)
		}
		if k.Sessions == nil {
			return nil, fmt.Errorf("this tier's kit has no Sessions")
		}
		cfg, err := k.Sessions(ctx, ns, cluster, naming.RWService(cluster), database)
		if err != nil {
			return nil, err
		}
		cfg.User = user
		cfg.TLSConfig.Certificates = []tls.Certificate{pair}
		return cfg, nil
	}
}

// LoginWithCert logs in as user with a certificate and key in hand (one
// an application kept from earlier, or one forged), within the kit's
// login timeout (10 s on the stand-in); the session closes with the
// test. The error is Postgres's answer: a certificate that is no pair
// with its key, or a configuration the tier cannot make, fails the test,
// so that a test expecting a refusal cannot count one of those as it.
func (k Kit) LoginWithCert(t testing.TB, config CertConfig, user string, crt, key []byte) (*pgx.Conn, error) {
	t.Helper()
	if _, err := tls.X509KeyPair(crt, key); err != nil {
		t.Fatalf("no certificate and key for %s: %v", user, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), k.scaled(10*time.Second))
	defer cancel()
	cfg, err := config(ctx, user, crt, key)
	if err != nil {
		t.Fatalf("configure a certificate login as %s: %v", user, err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = conn.Close(context.WithoutCancel(t.Context())) })
	return conn, nil
}

// LoginByCert is LoginWithCert with the certificate and key of Secret
// certSecret (tls.crt, tls.key), as an application is given them.
func (k Kit) LoginByCert(t testing.TB, ns, user, certSecret string, config CertConfig) (*pgx.Conn, error) {
	t.Helper()
	s := k.Secret(t, ns, certSecret)
	return k.LoginWithCert(t, config, user, s.Data["tls.crt"], s.Data["tls.key"])
}

// ConnectByCert is LoginByCert for a login that must succeed.
func (k Kit) ConnectByCert(t testing.TB, ns, user, certSecret string, config CertConfig) *pgx.Conn {
	t.Helper()
	conn, err := k.LoginByCert(t, ns, user, certSecret, config)
	if err != nil {
		t.Fatalf("%s by the certificate of %s: %v", user, certSecret, err)
	}
	return conn
}

// StartCertApp is an application that logs in as user by certificate
// over a new connection every pace.Poll, each attempt within
// pace.Timeout, reading its certificate from Secret certSecret each time,
// as one reading a mounted Secret's files does. It stops with the test.
func (k Kit) StartCertApp(t testing.TB, ns, user, certSecret string, pace Pace, config CertConfig) *App {
	t.Helper()
	app := StartApp(context.WithoutCancel(t.Context()), pace.Poll, func(ctx context.Context) error {
		return k.certLoginOnce(ctx, pace.Timeout, ns, user, certSecret, config)
	})
	t.Cleanup(app.Stop)
	return app
}

// certLoginOnce is one attempt of StartCertApp's application.
func (k Kit) certLoginOnce(ctx context.Context, timeout time.Duration, ns, user, certSecret string, config CertConfig) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s, err := k.Kube.CoreV1().Secrets(ns).Get(ctx, certSecret, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("read certificate: %w", err)
	}
	cfg, err := config(ctx, user, s.Data["tls.crt"], s.Data["tls.key"])
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("log in: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("query after logging in: %w", err)
	}
	return nil
}

// ForgeCert signs a client certificate for cn with the CA in Secret
// caSecret (ca.crt, ca.key): what anyone who can read that Secret could
// do.
func (k Kit) ForgeCert(t testing.TB, ns, caSecret, cn string) (crt, key []byte) {
	t.Helper()
	s := k.Secret(t, ns, caSecret)
	ca, err := pki.ParseAuthority(s.Data["ca.crt"], s.Data["ca.key"])
	if err != nil {
		t.Fatalf("CA in %s: %v", caSecret, err)
	}
	crt, key, err = ca.IssueClient(cn, time.Now(), time.Hour)
	if err != nil {
		t.Fatalf("sign a certificate for %s with %s: %v", cn, caSecret, err)
	}
	return crt, key
}

// HoldsNoOtherKey fails unless the Secret's only private key, if any, is
// the one of its own certificate (tls.key beside tls.crt).
func HoldsNoOtherKey(t testing.TB, s *corev1.Secret) {
	t.Helper()
	for k, v := range s.Data {
		if bytes.Contains(v, []byte("PRIVATE KEY")) && k != "tls.key" {
			t.Errorf("Secret %s, which applications are pointed to, holds a private key under %q", s.Name, k)
		}
	}
	if key, ok := s.Data["tls.key"]; ok {
		if _, err := tls.X509KeyPair(s.Data["tls.crt"], key); err != nil {
			t.Errorf("Secret %s: tls.key is not its own certificate's key: %v", s.Name, err)
		}
	}
}

// ApplicationsCannotMint checks what an application of the database whose
// ConfigMap data is cm can do with what it is pointed to on cluster, as
// both tiers see it: the ConfigMap names the server CA's copy without a
// key, no Secret it names holds a key other than its own certificate's,
// and a certificate signed with CNPG's server CA key — the Secret every
// application was pointed to before — is refused for the admin and rw
// roles. Each tier adds what only it can see.
func (k Kit) ApplicationsCannotMint(t testing.TB, ns, cluster string, cm map[string]string, config CertConfig) {
	t.Helper()
	if want := naming.ServerCASecret(cluster); cm["ca-secret"] != want {
		t.Errorf("ConfigMap points to CA Secret %q, want %s", cm["ca-secret"], want)
	}
	for _, key := range []string{"ca-secret", "admin-cert-secret", "rw-cert-secret", "ro-cert-secret"} {
		if name := cm[key]; name != "" {
			HoldsNoOtherKey(t, k.Secret(t, ns, name))
		}
	}
	serverCA := naming.CASecret(cluster)
	for _, user := range []string{cm["admin-user"], cm["rw-user"]} {
		crt, key := k.ForgeCert(t, ns, serverCA, user)
		if conn, err := k.LoginWithCert(t, config, user, crt, key); err == nil {
			_ = conn.Close(t.Context())
			t.Errorf("a certificate signed with %s's key logged in as %s", serverCA, user)
		}
	}
}
