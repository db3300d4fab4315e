package realcnpg

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/pki"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// applicationsCannotMint checks, on real CNPG, what an application of the
// database whose ConfigMap data is d can do with what it is pointed to
// (kit.ApplicationsCannotMint, what both tiers check: no key but its own
// certificate's in what it is pointed to, a certificate signed with
// CNPG's server CA key refused for every role), and what only this tier
// sees: one signed with the client CA's key — which no application is
// pointed to — logs in, so the refusal is the CA's and nothing else; and
// CNPG uses setpoint's client CA and replication certificate.
func applicationsCannotMint(t *testing.T, ns string, d map[string]string) {
	t.Helper()
	kit.ApplicationsCannotMint(t, ns, "shop", d, shopCert(ns))
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
	crt, key := kit.ForgeCert(t, ns, caSecret, user)
	return loginWithCert(t, ns, user, crt, key)
}

// rotateClientCA asks for a new client CA on a cluster with a database of
// certificate roles (ConfigMap data d) while an application logs in by
// certificate every 200 ms, reading its certificate from the Secret each
// time as one reading a mounted Secret does. No login fails: real CNPG
// takes the new CA, Postgres trusts it before it signs, CNPG re-issues
// the certificates, and after the grace the old CA — and so a certificate
// kept from before, or one forged with the old key — is refused.
func rotateClientCA(t *testing.T, ns string, d map[string]string) {
	t.Helper()
	user, certSecret := d["rw-user"], d["rw-cert-secret"]
	kept := kit.Secret(t, ns, certSecret)
	oldCA, err := pki.ParseAuthority(kit.Secret(t, ns, "shop-client-ca").Data["ca.crt"], kit.Secret(t, ns, "shop-client-ca").Data["ca.key"])
	if err != nil {
		t.Fatal(err)
	}
	app := startCertApp(t, ns, user, certSecret)
	kit.Eventually(t, 30*time.Second, "the application logs in by certificate", func(context.Context) (bool, string, error) {
		return app.OK() >= 3, fmt.Sprintf("%d ok, %d failed (%v)", app.OK(), app.Failed(), app.LastErr()), nil
	})

	start := time.Now()
	annotate(t, ns, "shop", func(name string, patch []byte) error {
		_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}, pgv1.RotateClientCAAnnotation, "real-1")
	var signing time.Duration
	kit.Eventually(t, 3*time.Minute, "the new client CA signs and the grace begins", func(ctx context.Context) (bool, string, error) {
		s, err := kube.CoreV1().Secrets(ns).Get(ctx, "shop-client-ca", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		if signing == 0 && s.Annotations[pgv1.ClientCARotatedForAnnotation] == "real-1" && len(s.Data["next.key"]) == 0 {
			if certs, err := pki.ParseBundle(s.Data["ca.crt"]); err == nil && len(certs) == 2 && !certs[0].Equal(oldCA.Cert) {
				signing = time.Since(start)
			}
		}
		_, grace := s.Annotations["setpoint.dev/replaced-ca-trusted-until"]
		return signing > 0 && grace, fmt.Sprintf("signing after %s, grace %v; %s", signing, grace, certificatesCondition(ctx, ns)), nil
	})
	if conn, err := loginWithCert(t, ns, user, kept.Data["tls.crt"], kept.Data["tls.key"]); err != nil {
		t.Errorf("during the grace the certificate the old CA signed was refused: %v", err)
	} else {
		_ = conn.Close(t.Context())
	}
	kit.Eventually(t, 2*time.Minute, "the move ends", func(ctx context.Context) (bool, string, error) {
		pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionCertificatesReady)
		return c != nil && c.Reason == pgv1.ReasonClientCAIsolated, fmt.Sprintf("%+v", c), nil
	})
	moved := time.Since(start)
	app.Stop()
	if n := app.Failed(); n > 0 || app.OK() < 10 {
		t.Errorf("%d of %d certificate logins failed across the rotation; last error: %v", n, n+app.OK(), app.LastErr())
	}
	t.Logf("client CA rotation on real CNPG: new CA signing after %s, move done after %s (grace %s), %d logins, none failed",
		signing.Round(time.Second), moved.Round(time.Second), ClientCAGrace, app.OK())

	if conn, err := loginWithCert(t, ns, user, kept.Data["tls.crt"], kept.Data["tls.key"]); err == nil {
		_ = conn.Close(t.Context())
		t.Error("after the move the certificate the old CA signed still logs in")
	}
	forged, forgedKey, err := oldCA.IssueClient(d["admin-user"], time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if conn, err := loginWithCert(t, ns, d["admin-user"], forged, forgedKey); err == nil {
		_ = conn.Close(t.Context())
		t.Error("after the move a certificate signed with the old client CA's key logs in")
	}
	connectByCert(t, ns, user, certSecret) // the re-issued certificate
}

// startCertApp logs in by certificate over a new connection every 200 ms,
// each attempt within 20 s, reading the certificate from its Secret each
// time.
func startCertApp(t *testing.T, ns, user, certSecret string) *testkit.App {
	t.Helper()
	return kit.StartCertApp(t, ns, user, certSecret, testkit.Pace{Poll: 200 * time.Millisecond, Timeout: 20 * time.Second}, shopCert(ns))
}

// certificatesCondition is shop's CertificatesReady, for a failure's message.
func certificatesCondition(ctx context.Context, ns string) string {
	pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionCertificatesReady)
	if c == nil {
		return "no CertificatesReady"
	}
	return c.Reason + ": " + c.Message
}
