package e2e_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/pki"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// libpqCannotMint checks what an application of database app (ConfigMap
// cm) can reach on cluster shop, logging in as a libpq application does
// (kit.ApplicationsCannotMint, what both tiers check), and that the
// server CA's copy it is pointed to holds ca.crt alone.
func libpqCannotMint(t *testing.T, ns string, cm map[string]string) {
	t.Helper()
	ca := kit.Secret(t, ns, cm["ca-secret"]).Data[cm["ca-secret-key"]]
	kit.ApplicationsCannotMint(t, ns, "shop", cm, libpqCertConfig(t.TempDir(), cm, ca))
	if keys := kit.Secret(t, ns, "shop-server-ca").Data; len(keys) != 1 || len(keys["ca.crt"]) == 0 {
		t.Errorf("shop-server-ca holds %d keys, want ca.crt alone", len(keys))
	}
}

// certificateReason is shop's CertificatesReady reason.
func certificateReason(ctx context.Context, ns string) (string, error) {
	pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionCertificatesReady); c != nil {
		return c.Reason, nil
	}
	return "", nil
}

// startLibpqCertApp is an application that logs in by certificate as a
// libpq application given cm does, over a new connection every 100 ms,
// reading its certificate from the Secret each time, as one reading a
// mounted Secret's files does.
func startLibpqCertApp(t *testing.T, ns string, cm map[string]string, user, certSecret string) *testkit.App {
	t.Helper()
	ca := kit.Secret(t, ns, cm["ca-secret"]).Data[cm["ca-secret-key"]]
	return kit.StartCertApp(t, ns, user, certSecret, testkit.Pace{Poll: 100 * time.Millisecond, Timeout: 10 * time.Second},
		libpqCertConfig(t.TempDir(), cm, ca))
}

// An upgrade from the setpoint whose clusters signed client certificates
// with the server CA — which every application was pointed to — moves
// each cluster to its own client CA with no failed certificate login: an
// application re-reading its certificate logs in throughout; one holding
// the old certificate keeps working while the move lasts; afterwards
// only certificates the client CA signed log in, and one forged with the
// server CA's key, which worked before, is refused.
func TestUpgradeMovesCertificateLoginsToTheirOwnClientCA(t *testing.T) {
	prev := runPrevious(t, lastOpenRelease)
	ns := prev.ns
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", Authentication: pgv1.AuthenticationCertificate})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	cm := getConfigMap(t, ns, "app-orders-config")
	if cm["ca-secret"] != "shop-ca" {
		t.Fatalf("the previous setpoint pointed applications to %q, want shop-ca", cm["ca-secret"])
	}
	// The hole: under the previous setpoint, shop-ca's key mints a login.
	forged, forgedKey := kit.ForgeCert(t, ns, "shop-ca", "orders_admin")
	conn, err := libpqLoginWithCert(t, ns, cm, "orders_admin", forged, forgedKey)
	if err != nil {
		t.Fatalf("before the upgrade a forged certificate should log in (the hole this closes): %v", err)
	}
	_ = conn.Close(t.Context())
	old := kit.Secret(t, ns, "shop.orders-rw-client-cert")

	app := startLibpqCertApp(t, ns, cm, "orders_rw", "shop.orders-rw-client-cert")
	kit.Until(t, 30*time.Second, "the application logs in by certificate", func(context.Context) (bool, error) {
		return app.OK() >= 5, nil
	})
	prev.upgrade(t, "--client-ca-grace=15s")

	// The move: every certificate re-issued, the old CA still trusted
	// during the grace — the kept certificate still logs in then.
	kit.Until(t, 120*time.Second, "the grace of the move begins", func(ctx context.Context) (bool, error) {
		s, err := kube.CoreV1().Secrets(ns).Get(ctx, "shop-client-ca", metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // not made yet
		}
		_, ok := s.Annotations["setpoint.dev/replaced-ca-trusted-until"]
		return ok, nil
	})
	conn, err = libpqLoginWithCert(t, ns, cm, "orders_rw", old.Data["tls.crt"], old.Data["tls.key"])
	if err != nil {
		t.Errorf("during the move the certificate the old CA signed was refused: %v", err)
	} else {
		_ = conn.Close(t.Context())
	}
	if r, err := certificateReason(t.Context(), ns); err != nil || r != pgv1.ReasonClientCAMoving {
		t.Errorf("CertificatesReady during the move: %q, %v", r, err)
	}

	kit.Until(t, 60*time.Second, "the move ends", func(ctx context.Context) (bool, error) {
		r, err := certificateReason(ctx, ns)
		return r == pgv1.ReasonClientCAIsolated, err
	})
	app.Stop()
	if n := app.Failed(); n > 0 {
		t.Errorf("%d of %d certificate logins failed across the upgrade; last error: %v", n, n+app.OK(), app.LastErr())
	}
	trusted, err := pki.ParseBundle(kit.Secret(t, ns, "shop-client-ca").Data["ca.crt"])
	if err != nil || len(trusted) != 1 {
		t.Fatalf("after the move the client CA trusts %d certificates (%v), want its own alone", len(trusted), err)
	}
	now := kit.Secret(t, ns, "shop.orders-rw-client-cert")
	if !pki.SignedBy(now.Data["tls.crt"], trusted[0]) {
		t.Error("orders_rw's certificate is not signed by shop-client-ca")
	}
	if conn, err := libpqLoginWithCert(t, ns, cm, "orders_rw", old.Data["tls.crt"], old.Data["tls.key"]); err == nil {
		_ = conn.Close(t.Context())
		t.Error("after the move the certificate the old CA signed still logs in")
	}
	cm = getConfigMap(t, ns, "app-orders-config")
	libpqCannotMint(t, ns, cm)
	if conn, err := libpqLoginByCert(t, ns, cm, "orders_rw", "shop.orders-rw-client-cert"); err != nil {
		t.Errorf("the re-issued certificate: %v", err)
	} else {
		_ = conn.Close(t.Context())
	}
	kit.WaitEvents(t, ns, "shop", pgv1.EventClientCAReplaced, 1, 20*time.Second)
	kit.WaitEvents(t, ns, "shop", pgv1.EventClientCAMoved, 1, 20*time.Second)
}

func getConfigMap(t *testing.T, ns, name string) map[string]string {
	t.Helper()
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ConfigMap %s: %v", name, err)
	}
	return cm.Data
}
