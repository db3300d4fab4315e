package realcnpg

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// An upgrade of the operator on real CNPG, from the release before tenant
// isolation and the client CA (`make release-previous`) to this one, as a
// user upgrades: kubectl apply of the new install.yaml. Under the earlier
// release a role of one database can log in to another's, and a
// certificate signed with the server CA's key — the Secret applications
// were pointed to — logs in as any certificate role. Across the upgrade an
// application logging in and writing as ledger_rw and one logging in by
// certificate as orders_rw, each over a new connection every 200 ms, count
// no failure; afterwards both holes are closed.
//
// Serial on purpose: the earlier release runs as the node's only operator
// while it lasts, and the parallel tests wait for it (they run after every
// serial test). This release is installed again however the test ends.
func TestUpgradeFromThePreviousReleaseOnRealCNPG(t *testing.T) {
	if setup.PreviousReleaseDir == "" {
		t.Fatalf("no earlier release to upgrade from: run `make release-previous` (or set %s)", PreviousEnv)
	}
	if err := InstallSetpoint(t.Context(), theNode.Config, setup.PreviousReleaseDir); err != nil {
		t.Fatalf("install the earlier release: %v", err)
	}
	t.Cleanup(func() {
		if err := InstallSetpoint(context.WithoutCancel(t.Context()), theNode.Config, setup.ReleaseDir, "--client-ca-grace="+ClientCAGrace.String()); err != nil {
			t.Errorf("install this release again: %v", err)
		}
	})
	ns := kit.Namespace(t)
	smallClass(t, "small-"+ns)
	createCluster(t, ns, "shop", "small-"+ns)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", Authentication: pgv1.AuthenticationCertificate})
	kit.CreateDatabase(t, ns, "ledger", "shop", pgv1.DatabaseSpec{Name: "ledger"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)
	kit.WaitDatabase(t, ns, "ledger", pgv1.PhaseReady, 3*time.Minute)

	rwPassword := kit.Password(t, ns, "ledger-ledger-rw")
	admin := kit.ConnectAs(t, ns, "shop", "ledger", "ledger-ledger-admin")
	if _, err := admin.Exec(t.Context(), "CREATE TABLE writes (at timestamptz DEFAULT now())"); err != nil {
		t.Fatalf("ledger_admin: CREATE TABLE: %v", err)
	}
	// The holes, under the earlier release.
	if conn, err := kit.Login(t, ns, "shop", "orders", "ledger_rw", rwPassword); err != nil {
		t.Fatalf("under the earlier release ledger_rw should enter orders (the hole this closes): %v", err)
	} else {
		_ = conn.Close(t.Context())
	}
	if conn, err := loginWithForged(t, ns, "shop-ca", "orders_admin"); err != nil {
		t.Fatalf("under the earlier release a certificate signed with shop-ca's key should log in (the hole this closes): %v", err)
	} else {
		_ = conn.Close(t.Context())
	}

	writes := testkit.StartApp(context.WithoutCancel(t.Context()), 200*time.Millisecond, func(ctx context.Context) error {
		return testkit.WriteOnce(ctx, 20*time.Second, func(ctx context.Context) (*pgx.Conn, error) {
			return kit.Open(ctx, ns, "shop", "ledger", "ledger_rw", rwPassword)
		})
	})
	t.Cleanup(writes.Stop)
	certs := startCertApp(t, ns, "orders_rw", "shop.orders-rw-client-cert")
	kit.Eventually(t, 30*time.Second, "both applications run", func(context.Context) (bool, string, error) {
		return writes.OK() >= 3 && certs.OK() >= 3, fmt.Sprintf("writes %d/%d, certificate logins %d/%d (%v; %v)",
			writes.OK(), writes.Failed(), certs.OK(), certs.Failed(), writes.LastErr(), certs.LastErr()), nil
	})

	start := time.Now()
	if err := InstallSetpoint(t.Context(), theNode.Config, setup.ReleaseDir, "--client-ca-grace="+ClientCAGrace.String()); err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	rolled := time.Since(start)
	for _, name := range []string{"app", "ledger"} {
		kit.Eventually(t, 3*time.Minute, name+"'s database is closed to other roles", func(ctx context.Context) (bool, string, error) {
			db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, "", err
			}
			c := meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionPrivilegesReady)
			return c != nil && c.Reason == pgv1.ReasonPrivilegesIsolated && db.Status.Phase == pgv1.PhaseReady, fmt.Sprintf("%s %+v", db.Status.Phase, c), nil
		})
	}
	isolated := time.Since(start)
	kit.Eventually(t, 4*time.Minute, "the cluster moved to its own client CA", func(ctx context.Context) (bool, string, error) {
		pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionCertificatesReady)
		return c != nil && c.Reason == pgv1.ReasonClientCAIsolated, fmt.Sprintf("%+v", c), nil
	})
	moved := time.Since(start)
	writes.Stop()
	certs.Stop()
	if n := writes.Failed(); n > 0 || writes.OK() < 10 {
		t.Errorf("%d of %d logins and writes as ledger_rw failed across the upgrade; last error: %v", n, n+writes.OK(), writes.LastErr())
	}
	if n := certs.Failed(); n > 0 || certs.OK() < 10 {
		t.Errorf("%d of %d certificate logins as orders_rw failed across the upgrade; last error: %v", n, n+certs.OK(), certs.LastErr())
	}
	t.Logf("upgrade on real CNPG: operator rolled in %s, databases isolated after %s, client CA moved after %s (grace %s); %d writes and %d certificate logins, none failed",
		rolled.Round(time.Second), isolated.Round(time.Second), moved.Round(time.Second), ClientCAGrace, writes.OK(), certs.OK())

	// Both holes closed.
	var refused *pgconn.PgError
	if _, err := kit.Login(t, ns, "shop", "orders", "ledger_rw", rwPassword); !errors.As(err, &refused) || refused.Code != "42501" {
		t.Errorf("after the upgrade ledger_rw entering orders: %v, want 42501", err)
	}
	if conn, err := loginWithForged(t, ns, "shop-ca", "orders_admin"); err == nil {
		_ = conn.Close(t.Context())
		t.Error("after the upgrade a certificate signed with shop-ca's key still logs in")
	}
	connectByCert(t, ns, "orders_rw", "shop.orders-rw-client-cert")
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "app-orders-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	applicationsCannotMint(t, ns, cm.Data)
}
