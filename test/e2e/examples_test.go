package e2e_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// mainExamples are the examples the stand-in can run for real: the
// backup, restore and adoption examples need a bucket and backups first,
// external Secrets and auto-grow are covered by the contract test's dry run.
var mainExamples = []string{
	"01-minimal.yaml",
	"07-read-only-role.yaml",
	"09-pooler.yaml",
	"11-monitoring.yaml",
	"12-retain-deletion.yaml",
	"14-schemas-and-grants.yaml",
}

// isolatedExamples loads the named examples with their prerequisites and
// rewrites only what the test framework needs for isolation: every
// namespaced object goes into ns (the examples name none: users apply them
// with kubectl apply -n), and each PostgresClusterClass, which is
// cluster-scoped and so shared with every other test of the package, is
// renamed <ns>-<name> along with the spec.class fields naming it. Nothing
// else changes, so what runs is what a user applies.
func isolatedExamples(t *testing.T, ns string, names ...string) []*unstructured.Unstructured {
	t.Helper()
	ex, err := envtest.LoadExamples(filepath.Join("..", "..", "manifests", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	chain, err := ex.WithPrerequisites(names...)
	if err != nil {
		t.Fatal(err)
	}
	objs := chain.Objects()
	classes := map[string]string{}
	for _, o := range objs {
		if o.GetKind() == "PostgresClusterClass" {
			classes[o.GetName()] = ns + "-" + o.GetName()
			o.SetName(classes[o.GetName()])
		}
	}
	for _, o := range objs {
		if o.GetKind() == "PostgresClusterClass" {
			continue
		}
		o.SetNamespace(ns)
		if o.GetKind() != "PostgresCluster" {
			continue
		}
		class, _, _ := unstructured.NestedString(o.Object, "spec", "class")
		renamed, ok := classes[class]
		if !ok {
			t.Fatalf("PostgresCluster %s names class %q, which its examples do not define", o.GetName(), class)
		}
		if err := unstructured.SetNestedField(o.Object, renamed, "spec", "class"); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range classes {
		t.Cleanup(func() {
			_ = pg.PostgresV1alpha1().PostgresClusterClasses().Delete(context.WithoutCancel(t.Context()), name, metav1.DeleteOptions{})
		})
	}
	return objs
}

// applyAndWaitReady server-side applies objs as kubectl apply --server-side
// would and waits until every PostgresCluster and PostgresDatabase among
// them is Ready at its generation.
func applyAndWaitReady(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	if _, err := envtest.ApplyObjects(t.Context(), env.Config, "kubectl", objs); err != nil {
		t.Fatalf("apply the examples: %v", err)
	}
	for _, o := range objs {
		switch o.GetKind() {
		case "PostgresCluster":
			kit.WaitCluster(t, o.GetNamespace(), o.GetName(), pgv1.PhaseReady, 180*time.Second)
		case "PostgresDatabase":
			kit.WaitDatabase(t, o.GetNamespace(), o.GetName(), pgv1.PhaseReady, 180*time.Second)
		}
	}
}

// The main examples, applied for real with the operator and the CNPG
// stand-in on real Postgres, become Ready and do what their headers say.
func TestExamplesBecomeReady(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "examples-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	objs := isolatedExamples(t, ns, mainExamples...)
	start := time.Now()
	applyAndWaitReady(t, objs)
	t.Logf("%d objects of %d examples Ready in %v", len(objs), len(mainExamples), time.Since(start).Round(time.Millisecond))

	t.Run("minimal: the application connects with its ConfigMap and Secret", func(t *testing.T) {
		cm := configMap(t, ns, "shop-app-orders-config")
		rw := dial(t, ns, "shop", cm["database"], "shop-app-orders-rw", cm["ca-secret"])
		if got := queryString(t, rw, "SELECT extname::text FROM pg_extension WHERE extname = 'pg_trgm'"); got != "pg_trgm" {
			t.Errorf("extension pg_trgm = %q", got)
		}
	})

	t.Run("read-only role: reads, cannot write", func(t *testing.T) {
		cm := configMap(t, ns, "shop-catalog-catalog-config")
		if cm["ro-user"] != "catalog_ro" || cm["ro-secret"] != "shop-catalog-catalog-ro" {
			t.Fatalf("ConfigMap ro-user/ro-secret = %q/%q", cm["ro-user"], cm["ro-secret"])
		}
		admin := dial(t, ns, "shop", cm["database"], "shop-catalog-catalog-admin", cm["ca-secret"])
		execSQL(t, admin, "CREATE TABLE items (id bigserial PRIMARY KEY, name text)")
		execSQL(t, admin, "INSERT INTO items (name) VALUES ('lamp')")
		ro := dial(t, ns, "shop", cm["database"], cm["ro-secret"], cm["ca-secret"])
		if got := queryString(t, ro, "SELECT name FROM items"); got != "lamp" {
			t.Errorf("catalog_ro reads %q, want lamp", got)
		}
		_, err := ro.Exec(t.Context(), "INSERT INTO items (name) VALUES ('no')")
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
			t.Errorf("catalog_ro INSERT: %v, want insufficient_privilege (42501)", err)
		}
	})

	t.Run("schemas and grants: rw inserts in invoices only, ro reads every schema", func(t *testing.T) {
		cm := configMap(t, ns, "shop-billing-billing-config")
		admin := dial(t, ns, "shop", cm["database"], "shop-billing-billing-admin", cm["ca-secret"])
		execSQL(t, admin, "CREATE TABLE invoices.invoice (id bigserial PRIMARY KEY, total int)")
		execSQL(t, admin, "CREATE TABLE reference.currency (code text PRIMARY KEY)")
		rw := dial(t, ns, "shop", cm["database"], "shop-billing-billing-rw", cm["ca-secret"])
		ro := dial(t, ns, "shop", cm["database"], "shop-billing-billing-ro", cm["ca-secret"])
		sqlAs(t, "billing_rw", rw, "", "INSERT INTO invoices.invoice (total) VALUES (1)")
		sqlAs(t, "billing_rw", rw, "42501", "UPDATE invoices.invoice SET total = 2")
		sqlAs(t, "billing_rw", rw, "42501", "SELECT * FROM reference.currency")
		sqlAs(t, "billing_ro", ro, "", "SELECT * FROM reference.currency")
		sqlAs(t, "billing_ro", ro, "42501", "INSERT INTO reference.currency VALUES ('EUR')")
	})

	t.Run("pooler: the database's ConfigMap names the pooler", func(t *testing.T) {
		cm := configMap(t, ns, "storefront-app-web-config")
		if cm["pooler-host"] != "storefront-pooler-rw."+ns+".svc" || cm["pooler-ro-host"] != "storefront-pooler-ro."+ns+".svc" {
			t.Errorf("pooler-host/pooler-ro-host = %q/%q", cm["pooler-host"], cm["pooler-ro-host"])
		}
		for _, name := range []string{"storefront-pooler-rw", "storefront-pooler-ro"} {
			p, err := pg.CNPGV1().Poolers(ns).Get(t.Context(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("Pooler %s: %v", name, err)
			}
			if p.Spec.Instances == nil || *p.Spec.Instances != 2 || p.Spec.PgBouncer == nil || p.Spec.PgBouncer.PoolMode != "transaction" {
				t.Errorf("Pooler %s: instances %v, pgbouncer %+v; want 2 in transaction mode", name, p.Spec.Instances, p.Spec.PgBouncer)
			}
		}
	})

	t.Run("monitoring: setpoint keeps the PodMonitor", func(t *testing.T) {
		pm, err := pg.MonitoringV1().PodMonitors(ns).Get(t.Context(), "payments-metrics", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("PodMonitor payments-metrics: %v", err)
		}
		if pm.Spec.Selector.MatchLabels["cnpg.io/cluster"] != "payments" {
			t.Errorf("PodMonitor selector = %+v", pm.Spec.Selector)
		}
	})

	t.Run("Retain: deletion keeps the data, applying the example again takes it back", func(t *testing.T) {
		kept := kit.Secret(t, ns, "ledger-app-accounts-rw")
		if err := pg.PostgresV1alpha1().PostgresDatabases(ns).Delete(t.Context(), "ledger-app", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		kit.Gone(t, "PostgresDatabase ledger-app", func(ctx context.Context) error {
			_, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "ledger-app", metav1.GetOptions{})
			return err
		})
		// scratch has the default policy, Delete: its CNPG Database goes.
		kit.Gone(t, "CNPG Database ledger-app-scratch", func(ctx context.Context) error {
			_, err := pg.CNPGV1().Databases(ns).Get(ctx, "ledger-app-scratch", metav1.GetOptions{})
			return err
		})
		kit.DeleteCluster(t, ns, "ledger")
		kit.SettleGC(t, ns) // what the garbage collector would remove is gone by now
		cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "ledger", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("Retain deleted the CNPG Cluster: %v", err)
		}
		if len(cl.OwnerReferences) != 0 || cl.Labels[ownership.RetainedLabel] != "true" {
			t.Errorf("kept CNPG Cluster: owners %v, labels %v; want released and marked retained", cl.OwnerReferences, cl.Labels)
		}
		if _, err := pg.CNPGV1().Databases(ns).Get(t.Context(), "ledger-app-accounts", metav1.GetOptions{}); err != nil {
			t.Errorf("Retain deleted the CNPG Database of accounts: %v", err)
		}
		if s := kit.Secret(t, ns, "ledger-app-accounts-rw"); len(s.OwnerReferences) != 0 {
			t.Errorf("kept Secret still owned: %v", s.OwnerReferences)
		}

		applyAndWaitReady(t, isolatedExamples(t, ns, "12-retain-deletion.yaml"))
		again := kit.Secret(t, ns, "ledger-app-accounts-rw")
		if string(again.Data["password"]) != string(kept.Data["password"]) {
			t.Error("taking the retained database back changed its password")
		}
		cm := configMap(t, ns, "ledger-app-accounts-config")
		dial(t, ns, "ledger", cm["database"], "ledger-app-accounts-rw", cm["ca-secret"])
	})
}

func configMap(t *testing.T, ns, name string) map[string]string {
	t.Helper()
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ConfigMap %s: %v", name, err)
	}
	return cm.Data
}
