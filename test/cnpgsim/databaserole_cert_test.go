package cnpgsim_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// dialCert connects as user with the certificate and key of Secret
// certSecret (tls.crt, tls.key) and no password, TLS verified against the
// Cluster's CA.
func dialCert(t *testing.T, ns, cluster, user, certSecret string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s, err := kube.CoreV1().Secrets(ns).Get(ctx, certSecret, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get %s: %w", certSecret, err)
	}
	pair, err := tls.X509KeyPair(s.Data["tls.crt"], s.Data["tls.key"])
	if err != nil {
		return fmt.Errorf("client key pair: %w", err)
	}
	ca, err := kube.CoreV1().Secrets(ns).Get(ctx, cluster+"-ca", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get CA secret: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.Data["ca.crt"])
	host := cluster + "-rw." + ns + ".svc"
	cfg, err := pgx.ParseConfig("")
	if err != nil {
		return err
	}
	cfg.Host, cfg.Port, cfg.User, cfg.Database = host, 5432, user, "postgres"
	cfg.TLSConfig = &tls.Config{RootCAs: pool, ServerName: host, MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{pair}}
	cfg.Fallbacks = nil
	cfg.LookupFunc = func(_ context.Context, h string) ([]string, error) { return []string{h}, nil }
	hostMap := readHostMap(t)
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, hostMap[addr])
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var who string
	if err := conn.QueryRow(ctx, "SELECT current_user").Scan(&who); err != nil {
		return err
	}
	if who != user {
		return fmt.Errorf("logged in as %s, want %s", who, user)
	}
	return nil
}

// As CNPG 1.30's operator: a DatabaseRole with clientCertificate gets
// Secret <object>-client-cert (kubernetes.io/tls, controlled by the
// object, CN = the role, client auth, signed by the Cluster's CA) and
// status.clientCertificate.expiration; with the pg_hba line the user adds
// (CNPG adds none), the role logs in with it and no password, and only as
// itself; disabling the certificate deletes the Secret and clears the
// status; a same-named Secret not the object's is left alone, reported.
func TestDatabaseRoleClientCertificate(t *testing.T) {
	ns := newNamespace(t)
	newCluster(t, ns, "crt", func(c *cnpgv1.Cluster) {
		c.Spec.PostgresConfiguration = &cnpgv1.PostgresConfiguration{PgHBA: []string{"hostssl all dante all cert"}}
	})
	newDatabaseRole(t, ns, "role-dante", "crt", "dante", reclaim("delete"), func(r *cnpgv1.DatabaseRole) {
		r.Spec.Login = true
		r.Spec.ClientCertificate = &cnpgv1.ClientCertificateConfiguration{} // enabled defaults to true
	})
	newDatabaseRole(t, ns, "role-other", "crt", "other", reclaim("delete"), func(r *cnpgv1.DatabaseRole) { r.Spec.Login = true })
	waitHealthy(t, ns, "crt")

	r := waitDatabaseRole(t, ns, "role-dante", func(r *cnpgv1.DatabaseRole) error {
		if c := r.Status.ClientCertificate; c == nil || c.Expiration == "" {
			return fmt.Errorf("status.clientCertificate = %+v", c)
		}
		return roleApplied(r)
	})
	s, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "role-dante-client-cert", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Type != corev1.SecretTypeTLS || !metav1.IsControlledBy(s, r) || s.Labels["app.kubernetes.io/managed-by"] != "cloudnative-pg" {
		t.Errorf("Secret type %s labels %v owners %+v", s.Type, s.Labels, s.OwnerReferences)
	}
	b, _ := pem.Decode(s.Data["tls.crt"])
	if b == nil {
		t.Fatal("tls.crt holds no PEM certificate")
	}
	leaf, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if leaf.Subject.CommonName != "dante" || len(leaf.ExtKeyUsage) != 1 || leaf.ExtKeyUsage[0] != x509.ExtKeyUsageClientAuth ||
		r.Status.ClientCertificate.Expiration != leaf.NotAfter.UTC().Format(time.RFC3339) {
		t.Errorf("certificate CN %q usages %v NotAfter %s, status %+v", leaf.Subject.CommonName, leaf.ExtKeyUsage, leaf.NotAfter, r.Status.ClientCertificate)
	}

	if err := dialCert(t, ns, "crt", "dante", "role-dante-client-cert"); err != nil {
		t.Errorf("login by certificate, no password: %v", err)
	}
	if err := dialCert(t, ns, "crt", "other", "role-dante-client-cert"); err == nil {
		t.Error("dante's certificate logged in as another role")
	}
	if canLogin(t, ns, "crt", "dante", "") == nil {
		t.Error("dante logged in without a certificate")
	}

	updateDatabaseRole(t, ns, "role-dante", func(r *cnpgv1.DatabaseRole) {
		r.Spec.ClientCertificate = &cnpgv1.ClientCertificateConfiguration{Enabled: boolPtr(false)}
	})
	eventually(t, 20*time.Second, "Secret deleted, status cleared", func() error {
		if _, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "role-dante-client-cert", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("Secret still there (%v)", err)
		}
		if c := getDatabaseRole(t, ns, "role-dante").Status.ClientCertificate; c != nil {
			return fmt.Errorf("status.clientCertificate = %+v", c)
		}
		return nil
	})

	// A Secret of that name that is not the object's: never overwritten.
	planted := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "role-other-client-cert", Namespace: ns}, StringData: map[string]string{"tls.crt": "mine"}}
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), planted, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	updateDatabaseRole(t, ns, "role-other", func(r *cnpgv1.DatabaseRole) {
		r.Spec.ClientCertificate = &cnpgv1.ClientCertificateConfiguration{Enabled: boolPtr(true)}
	})
	waitDatabaseRole(t, ns, "role-other", func(r *cnpgv1.DatabaseRole) error {
		want := `Secret "role-other-client-cert" already exists and is not owned by this DatabaseRole`
		if c := r.Status.ClientCertificate; c == nil || c.Message != want {
			return fmt.Errorf("status.clientCertificate = %+v, want message %q", c, want)
		}
		return nil
	})
	if got, _ := kube.CoreV1().Secrets(ns).Get(t.Context(), "role-other-client-cert", metav1.GetOptions{}); string(got.Data["tls.crt"]) != "mine" {
		t.Errorf("someone's Secret was overwritten: %q", got.Data["tls.crt"])
	}
}
