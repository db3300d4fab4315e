package realcnpg

import (
	"bytes"
	"crypto/tls"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/pki"
)

// applicationsCannotMint checks, on real CNPG, what an application of the
// database whose ConfigMap data is d can do with what it is pointed to:
// the CA Secret holds no key, each certificate Secret only its own; a
// certificate signed with CNPG's server CA key (the Secret applications
// were pointed to before) is refused for every role, while one signed
// with the client CA's key — which no application is pointed to — logs
// in, so the refusal is the CA's and nothing else. CNPG uses setpoint's
// client CA and replication certificate.
func applicationsCannotMint(t *testing.T, ns string, d map[string]string) {
	t.Helper()
	if d["ca-secret"] != "shop-server-ca" {
		t.Errorf("ConfigMap ca-secret = %q, want shop-server-ca", d["ca-secret"])
	}
	for _, k := range []string{"ca-secret", "admin-cert-secret", "rw-cert-secret", "ro-cert-secret"} {
		name := d[k]
		if name == "" {
			continue
		}
		s, err := kube.CoreV1().Secrets(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("Secret %s: %v", name, err)
		}
		for key, v := range s.Data {
			if bytes.Contains(v, []byte("PRIVATE KEY")) && key != "tls.key" {
				t.Errorf("Secret %s, which applications are pointed to, holds a private key under %q", name, key)
			}
		}
		if key, ok := s.Data["tls.key"]; ok {
			if _, err := tls.X509KeyPair(s.Data["tls.crt"], key); err != nil {
				t.Errorf("Secret %s: tls.key is not its own certificate's: %v", name, err)
			}
		}
	}
	for _, user := range []string{d["admin-user"], d["rw-user"]} {
		if conn, err := loginWithForged(t, ns, "shop-ca", user); err == nil {
			_ = conn.Close(t.Context())
			t.Errorf("a certificate signed with shop-ca's key logged in as %s", user)
		}
	}
	conn, err := loginWithForged(t, ns, "shop-client-ca", d["admin-user"])
	if err != nil {
		t.Errorf("control: a certificate signed with the client CA's key was refused (%v); the refusal above proves nothing", err)
	} else {
		_ = conn.Close(t.Context())
	}

	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := cl.Status.Certificates; c == nil || c.ClientCASecret != "shop-client-ca" || c.ReplicationTLSSecret != "shop-replication-tls" {
		t.Errorf("CNPG's status.certificates = %+v, want setpoint's client CA and replication certificate", c)
	}
	pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionCertificatesReady); c == nil || c.Reason != pgv1.ReasonClientCAIsolated {
		t.Errorf("CertificatesReady = %+v, want %s", c, pgv1.ReasonClientCAIsolated)
	}
}

// loginWithForged logs in through -rw as user with a certificate signed
// by the CA in Secret caSecret (ca.crt and ca.key).
func loginWithForged(t *testing.T, ns, caSecret, user string) (*pgx.Conn, error) {
	t.Helper()
	s, err := kube.CoreV1().Secrets(ns).Get(t.Context(), caSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Secret %s: %v", caSecret, err)
	}
	ca, err := pki.ParseAuthority(s.Data["ca.crt"], s.Data["ca.key"])
	if err != nil {
		t.Fatalf("CA in %s: %v", caSecret, err)
	}
	crt, key, err := ca.IssueClient(user, time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return loginWithCert(t, ns, user, crt, key)
}
