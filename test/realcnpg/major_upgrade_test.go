package realcnpg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// onCatalog runs the cluster on the harness's catalog, which serves the
// node's PostgreSQL 15 and 17 images: a major upgrade raises the major.
func onCatalog(s *pgv1.ClusterSettings) {
	s.ImageName = ""
	s.ImageCatalog = &pgv1.ImageCatalogRef{Kind: pgv1.ImageCatalogKindCluster, Name: ImageCatalog}
}

// TestMajorUpgradeOnRealCNPG: a PostgresCluster of two instances on 15,
// with backups and a pooler, and two PostgresDatabases with data, an
// extension, a read-only role and a certificate role, goes to 17 when
// postgresVersion is raised. The backup setpoint takes first completes
// before the CNPG Cluster names 17; CloudNativePG runs pg_upgrade; status
// walks the phases, and the databases stay Ready throughout. Afterwards
// every role logs in as before (password or certificate), the privileges
// hold, the data is there, Postgres says 17, each database has planner
// statistics again, WAL is archived into a folder of the new system's, the
// collector samples the new server, and an
// application writing through the pooler resumed by itself with no
// acknowledged row lost.
func TestMajorUpgradeOnRealCNPG(t *testing.T) {
	t.Parallel() // its cluster's Pods alone stop
	ns := kit.Namespace(t)
	class := s3BackupClass(t, ns, "", onCatalog, func(s *pgv1.ClusterSettings) {
		s.Instances = ptr.To[int32](2)
		s.ConnectionPooler = &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(true), Instances: ptr.To[int32](1), PoolMode: pgv1.PoolModeSession}
	})
	createCluster(t, ns, "shop", class)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 8*time.Minute)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true, Extensions: []string{"pg_trgm"}})
	kit.CreateDatabase(t, ns, "certs", "shop", pgv1.DatabaseSpec{Name: "ledger", Authentication: pgv1.AuthenticationCertificate})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 4*time.Minute)
	kit.WaitDatabase(t, ns, "certs", pgv1.PhaseReady, 4*time.Minute)

	admin := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	for _, sql := range []string{
		"CREATE TABLE items (id int PRIMARY KEY, name text)",
		"INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 5000) g",
		"CREATE TABLE writes (id int PRIMARY KEY)",
	} {
		if _, err := admin.Exec(t.Context(), sql); err != nil {
			t.Fatalf("admin: %s: %v", sql, err)
		}
	}
	_ = admin.Close(t.Context())
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "certs-ledger-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	certCM := cm.Data
	ledger := kit.ConnectByCert(t, ns, certCM["admin-user"], certCM["admin-cert-secret"], kit.CertSessions(ns, "shop", "ledger"))
	for _, sql := range []string{"CREATE TABLE entries (id int PRIMARY KEY)", "INSERT INTO entries VALUES (1), (2)"} {
		if _, err := ledger.Exec(t.Context(), sql); err != nil {
			t.Fatalf("ledger admin by certificate: %s: %v", sql, err)
		}
	}
	_ = ledger.Close(t.Context())
	passwords := map[string]string{}
	for _, s := range []string{"app-orders-admin", "app-orders-rw", "app-orders-ro"} {
		passwords[s] = kit.Password(t, ns, s)
	}

	writer := startAckWriterVia(t, ns, "shop", "shop-pooler-rw", "orders", "writes", "app-orders-rw")
	kit.Until(t, time.Minute, "the application writing through the pooler", func(context.Context) (bool, error) {
		return writer.ackedCount() >= 20, nil
	})

	start := time.Now()
	pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pc.Spec.PostgresVersion = ptr.To[int32](17)
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), pc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	w := watchUpgrade(t, ns, "shop", []string{"app", "certs"})
	kit.Eventually(t, 20*time.Minute, "the major upgrade to 17 succeeded", func(ctx context.Context) (bool, string, error) {
		done, msg := w.look(ctx)
		return done, msg, nil
	})
	took := time.Since(start)
	gap := writer.gap()
	acked, uncertain, _ := writer.finish()
	t.Logf("major upgrade 15 -> 17 took %s; phases %v; the application through the pooler wrote nothing for %s at most; %d rows acknowledged",
		took.Round(time.Second), w.phases, gap.Round(time.Second), len(acked))
	w.check(t)

	got := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 5*time.Minute)
	if u := got.Status.Upgrade; u == nil || !strings.HasPrefix(u.ServerVersion, "17.") || u.Backup == "" {
		t.Errorf("status.upgrade %+v, want the version Postgres reports (17.x) and the backup", u)
	}
	for _, name := range []string{"app", "certs"} {
		db := kit.WaitDatabase(t, ns, name, pgv1.PhaseReady, 3*time.Minute)
		if db.Status.StatisticsMajor != 17 {
			t.Errorf("PostgresDatabase %s statisticsMajor %d, want 17", name, db.Status.StatisticsMajor)
		}
	}

	// Every role as before: passwords unchanged, certificates unchanged.
	rw, err := kit.Login(t, ns, "shop", "orders", "orders_rw", passwords["app-orders-rw"])
	if err != nil {
		t.Fatalf("orders_rw with its password after the upgrade: %v", err)
	}
	var version int
	if err := rw.QueryRow(t.Context(), "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil || version/10000 != 17 {
		t.Errorf("server_version_num %d (%v), want 17xxxx", version, err)
	}
	if _, err := rw.Exec(t.Context(), "INSERT INTO items VALUES (100001, 'after the upgrade')"); err != nil {
		t.Errorf("orders_rw writes after the upgrade: %v", err)
	}
	var n int
	if err := rw.QueryRow(t.Context(), "SELECT count(*) FROM items").Scan(&n); err != nil || n != 5001 {
		t.Errorf("items has %d rows (%v), want the 5000 of before and 1", n, err)
	}
	checkNoRowLost(t, rw, "writes", acked, uncertain)
	_ = rw.Close(t.Context())
	ro, err := kit.Login(t, ns, "shop", "orders", "orders_ro", passwords["app-orders-ro"])
	if err != nil {
		t.Fatalf("orders_ro with its password after the upgrade: %v", err)
	}
	var refused *pgconn.PgError
	if _, err := ro.Exec(t.Context(), "INSERT INTO items VALUES (100002, 'ro')"); !errors.As(err, &refused) || refused.Code != "42501" {
		t.Errorf("orders_ro INSERT after the upgrade: %v, want permission denied (42501)", err)
	}
	_ = ro.Close(t.Context())
	adm, err := kit.Login(t, ns, "shop", "orders", "orders_admin", passwords["app-orders-admin"])
	if err != nil {
		t.Fatalf("orders_admin with its password after the upgrade: %v", err)
	}
	// pg_upgrade keeps no statistics: these are ANALYZE's, run by setpoint
	// as the owner after the upgrade.
	var stats int
	if err := adm.QueryRow(t.Context(), "SELECT count(*) FROM pg_stats WHERE schemaname = 'public' AND tablename = 'items'").Scan(&stats); err != nil || stats == 0 {
		t.Errorf("pg_stats has %d rows for items (%v), want the statistics ANALYZE builds", stats, err)
	}
	var trgm bool
	if err := adm.QueryRow(t.Context(), "SELECT similarity('postgres', 'postgrse') > 0").Scan(&trgm); err != nil || !trgm {
		t.Errorf("pg_trgm after the upgrade: %v, %v", trgm, err)
	}
	_ = adm.Close(t.Context())
	ledger = kit.ConnectByCert(t, ns, certCM["rw-user"], certCM["rw-cert-secret"], kit.CertSessions(ns, "shop", "ledger"))
	if err := ledger.QueryRow(t.Context(), "SELECT count(*) FROM entries").Scan(&n); err != nil || n != 2 {
		t.Errorf("ledger rw by certificate reads %d entries (%v), want 2", n, err)
	}
	_ = ledger.Close(t.Context())

	// The new system archives into a folder of its own (its timeline
	// restarts at 1), and archiving works there.
	if b := got.Status.BackupStatus; b == nil || b.ServerName != "shop-pg17" {
		t.Errorf("backupStatus %+v, want serverName shop-pg17", b)
	}
	kit.SwitchWAL(t, ns, "shop")

	// The collector samples the new server: status holds a sample taken
	// after the upgraded primary started. Status records a new sample only
	// when its figures change band or status is written anyway (see
	// PostgresHealth), so the sample need not be newer than the moment
	// this test saw Succeeded; it must be newer than the server.
	primary, err := kube.CoreV1().Pods(ns).Get(t.Context(), got.Status.CurrentPrimary, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var serverStart time.Time
	for _, c := range primary.Status.ContainerStatuses {
		if c.Name == "postgres" && c.State.Running != nil {
			serverStart = c.State.Running.StartedAt.Time
		}
	}
	if serverStart.IsZero() {
		t.Fatalf("primary %s has no running postgres container", primary.Name)
	}
	kit.Eventually(t, 3*time.Minute, "a sample of the upgraded primary", func(ctx context.Context) (bool, string, error) {
		pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		s := pc.Status.Postgres
		if s == nil {
			return false, "no sample", nil
		}
		unreachable := meta.IsStatusConditionTrue(pc.Status.Conditions, pgv1.ConditionPostgresUnreachable)
		return !s.SampledAt.Time.Before(serverStart.Truncate(time.Second)) && s.AcceptsWrites && !unreachable,
			fmt.Sprintf("sampled at %s (server started %s), accepts writes %v, unreachable %v", s.SampledAt, serverStart, s.AcceptsWrites, unreachable), nil
	})
}

// upgradeWatch follows an upgrade from outside, as a person would: the
// phases status.upgrade shows, whether the backup had completed when the
// CNPG Cluster first named the new major, and the databases' readiness.
type upgradeWatch struct {
	t         *testing.T
	ns, name  string
	databases []string
	phases    []pgv1.UpgradePhase
	// switched: the CNPG Cluster named major 17; backupDone says whether
	// the pre-upgrade backup had completed when it was first seen so.
	switched, backupDone bool
	notReady             map[string]pgv1.Phase
	upgradingSaid        bool
}

func watchUpgrade(t *testing.T, ns, name string, databases []string) *upgradeWatch {
	return &upgradeWatch{t: t, ns: ns, name: name, databases: databases, notReady: map[string]pgv1.Phase{}}
}

// look records what it sees and says whether the upgrade Succeeded; it
// fails the test at once on Failed.
func (w *upgradeWatch) look(ctx context.Context) (bool, string) {
	pc, err := pg.PostgresV1alpha1().PostgresClusters(w.ns).Get(ctx, w.name, metav1.GetOptions{})
	if err != nil {
		return false, err.Error()
	}
	u := pc.Status.Upgrade
	if u == nil {
		return false, "no status.upgrade yet"
	}
	if len(w.phases) == 0 || w.phases[len(w.phases)-1] != u.Phase {
		w.phases = append(w.phases, u.Phase)
	}
	if u.Phase == pgv1.UpgradeFailed {
		w.t.Fatalf("the upgrade Failed: %s", u.Message)
	}
	if !w.switched {
		if cl, err := pg.CNPGV1().Clusters(w.ns).Get(ctx, w.name, metav1.GetOptions{}); err == nil && cl.Spec.ImageCatalogRef != nil && cl.Spec.ImageCatalogRef.Major == 17 {
			w.switched = true
			if u.Backup != "" {
				b, err := pg.CNPGV1().Backups(w.ns).Get(ctx, u.Backup, metav1.GetOptions{})
				w.backupDone = err == nil && b.Status.Phase == cnpgv1.BackupPhaseCompleted
			}
		}
	}
	for _, name := range w.databases {
		db, err := pg.PostgresV1alpha1().PostgresDatabases(w.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			continue
		}
		if db.Status.Phase != pgv1.PhaseReady {
			w.notReady[name] = db.Status.Phase
		}
		if c := meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionClusterReady); c != nil && c.Reason == pgv1.ReasonClusterUpgrading {
			w.upgradingSaid = true
		}
	}
	return u.Phase == pgv1.UpgradeSucceeded, fmt.Sprintf("phase %s: %s", u.Phase, u.Message)
}

func (w *upgradeWatch) check(t *testing.T) {
	t.Helper()
	order := []pgv1.UpgradePhase{pgv1.UpgradePreflight, pgv1.UpgradeBackingUp, pgv1.UpgradeUpgrading, pgv1.UpgradeAnalyzing, pgv1.UpgradeSucceeded}
	last := -1
	for _, p := range w.phases {
		i := slices.Index(order, p)
		if i <= last {
			t.Errorf("phases %v are not in the order %v", w.phases, order)
			break
		}
		last = i
	}
	if !slices.Contains(w.phases, pgv1.UpgradeUpgrading) || !slices.Contains(w.phases, pgv1.UpgradeBackingUp) {
		t.Errorf("phases seen %v, want BackingUp and Upgrading among them", w.phases)
	}
	if !w.switched || !w.backupDone {
		t.Errorf("CNPG Cluster named 17: %v; the backup had completed then: %v (want both)", w.switched, w.backupDone)
	}
	if len(w.notReady) > 0 {
		t.Errorf("PostgresDatabases not Ready during the upgrade: %v", w.notReady)
	}
	if !w.upgradingSaid {
		t.Error("no PostgresDatabase said ClusterUpgrading during the upgrade")
	}
}

// TestMajorUpgradePreflightRefusesAMissingExtensionOnRealCNPG: a database
// declares adminpack, which PostgreSQL 17 removed (Debian's postgresql-17
// has no adminpack.control): raising postgresVersion to 17 is refused by
// the preflight, which asked the 17 image itself, with the extension's
// name; the CNPG Cluster stays on 15, untouched, and Postgres still says
// 15. Setting postgresVersion back to 15 ends the attempt.
func TestMajorUpgradePreflightRefusesAMissingExtensionOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	smallClass(t, "pre-"+ns, onCatalog)
	createCluster(t, ns, "shop", "pre-"+ns)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", Extensions: []string{"adminpack", "pg_trgm"}})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 4*time.Minute)
	before, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pc.Spec.PostgresVersion = ptr.To[int32](17)
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), pc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := kit.WaitClusterReason(t, ns, "shop", pgv1.ConditionMajorUpgrade, pgv1.ReasonUpgradePreflightFailed, 5*time.Minute)
	u := got.Status.Upgrade
	if u == nil || u.Phase != pgv1.UpgradePreflight || !strings.Contains(u.Message, "extension adminpack") || strings.Contains(u.Message, "pg_trgm") {
		t.Errorf("status.upgrade %+v, want Preflight naming adminpack and not pg_trgm", u)
	}
	after, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Generation != before.Generation || after.Spec.ImageCatalogRef == nil || after.Spec.ImageCatalogRef.Major != 15 {
		t.Errorf("CNPG Cluster generation %d -> %d, major %+v: want it untouched on 15", before.Generation, after.Generation, after.Spec.ImageCatalogRef)
	}
	su := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	var version int
	if err := su.QueryRow(t.Context(), "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil || version/10000 != 15 {
		t.Errorf("server_version_num %d (%v), want 15xxxx", version, err)
	}
	_ = su.Close(t.Context())
	kit.Gone(t, "the preflight's probe Pod", func(ctx context.Context) error {
		_, err := kube.CoreV1().Pods(ns).Get(ctx, "shop-upgrade-probe-17", metav1.GetOptions{})
		return err
	})

	// Back to 15: the CRD allows it while the upgrade has not started,
	// and the attempt ends with nothing changed.
	pc, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pc.Spec.PostgresVersion = ptr.To[int32](15)
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), pc, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("postgresVersion back to 15 during the preflight: %v", err)
	}
	got = kit.WaitClusterReason(t, ns, "shop", pgv1.ConditionMajorUpgrade, pgv1.ReasonUpgradeFailed, 2*time.Minute)
	if u := got.Status.Upgrade; u == nil || !strings.Contains(u.Message, "cancelled") {
		t.Errorf("status.upgrade %+v, want the attempt cancelled", u)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, pgv1.ConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("Ready = %+v, want True on 15", c)
	}
}

// TestFailedMajorUpgradeRollsBackOnRealCNPG: pg_upgrade refuses a cluster
// whose tables hold a regproc column (it names functions by OIDs that
// pg_upgrade does not keep), so CloudNativePG's upgrade Job fails. setpoint
// reports it with the Job's message and the last lines of its log, and
// asks for the old major again (CloudNativePG's rollback): the cluster
// runs 15 again with its data, and nothing retries. Once the column is
// gone, the retry annotation upgrades it.
func TestFailedMajorUpgradeRollsBackOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	smallClass(t, "fail-"+ns, onCatalog)
	createCluster(t, ns, "shop", "fail-"+ns)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 4*time.Minute)
	admin := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	for _, sql := range []string{"CREATE TABLE hooks (id int PRIMARY KEY, fn regproc)", "INSERT INTO hooks VALUES (1, 'now')"} {
		if _, err := admin.Exec(t.Context(), sql); err != nil {
			t.Fatalf("admin: %s: %v", sql, err)
		}
	}
	_ = admin.Close(t.Context())

	pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pc.Annotations = map[string]string{pgv1.UpgradeWithoutBackupAnnotation: "17"}
	pc.Spec.PostgresVersion = ptr.To[int32](17)
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), pc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := kit.WaitClusterReason(t, ns, "shop", pgv1.ConditionMajorUpgrade, pgv1.ReasonUpgradeFailed, 10*time.Minute)
	u := got.Status.Upgrade
	if u == nil || u.Phase != pgv1.UpgradeFailed || !strings.Contains(u.Message, "major-upgrade") || !strings.Contains(u.Message, pgv1.RetryUpgradeAnnotation) {
		t.Fatalf("status.upgrade %+v, want Failed naming the Job and the retry", u)
	}
	t.Logf("pg_upgrade failed after %s: %s", time.Since(start).Round(time.Second), u.Message)
	kit.Eventually(t, 8*time.Minute, "the CNPG Cluster back on 15, healthy", func(ctx context.Context) (bool, string, error) {
		cl, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		r := cl.Spec.ImageCatalogRef
		return r != nil && r.Major == 15 && cl.Status.Phase == "Cluster in healthy state" && cl.Status.ReadyInstances == cl.Status.Instances,
			fmt.Sprintf("major %+v, phase %q", r, cl.Status.Phase), nil
	})
	t.Logf("back on 15 %s after the upgrade was asked for", time.Since(start).Round(time.Second))
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 3*time.Minute)
	admin = kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	var version, n int
	if err := admin.QueryRow(t.Context(), "SELECT current_setting('server_version_num')::int, (SELECT count(*) FROM hooks)").Scan(&version, &n); err != nil || version/10000 != 15 || n != 1 {
		t.Fatalf("after the rollback: server_version_num %d, hooks %d (%v), want 15xxxx and the row", version, n, err)
	}
	if got := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, time.Minute); got.Status.Upgrade.Phase != pgv1.UpgradeFailed {
		t.Errorf("status.upgrade %+v after the rollback, want Failed until a retry", got.Status.Upgrade)
	}

	if _, err := admin.Exec(t.Context(), "ALTER TABLE hooks ALTER COLUMN fn TYPE text"); err != nil {
		t.Fatal(err)
	}
	_ = admin.Close(t.Context())
	pc, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pc.Annotations[pgv1.RetryUpgradeAnnotation] = "after-fixing-hooks"
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), pc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got = kit.WaitClusterReason(t, ns, "shop", pgv1.ConditionMajorUpgrade, pgv1.ReasonUpgradeSucceeded, 12*time.Minute)
	if u := got.Status.Upgrade; !strings.HasPrefix(u.ServerVersion, "17.") || u.RetryRequest != "after-fixing-hooks" {
		t.Errorf("status.upgrade %+v, want the retried attempt on 17", u)
	}
}
