package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A major upgrade on the stand-in, which plays CloudNativePG's (its Job,
// its phases, pgDataImageInfo) but runs the host's PostgreSQL 15 whatever
// the major: the phases in order, the backup completed before the CNPG
// Cluster names 17, the database Ready throughout (saying ClusterUpgrading)
// and analyzed after, the
// archive in a folder of the new system's. Then a failed pg_upgrade: the
// failure is reported with the Job's message, the cluster runs 15 again
// (CloudNativePG's rollback), nothing retries until asked, and the retry
// succeeds.
func TestMajorUpgradeOnTheStandIn(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := backupClass(t, ns, "")
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", Extensions: nil})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	admin := connectAs(t, ns, "app-orders-config", "app-orders-admin")
	execSQL(t, admin, "CREATE TABLE items (id int PRIMARY KEY)")
	execSQL(t, admin, "INSERT INTO items SELECT generate_series(1, 100)")
	_ = admin.Close(t.Context())

	kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) { c.Spec.PostgresVersion = ptr.To[int32](17) })
	w := &upgradeLook{ns: ns}
	kit.Eventually(t, 3*time.Minute, "the upgrade to 17 succeeded", w.succeeded)
	w.check(t)
	if !slices.Contains(w.phases, pgv1.UpgradeUpgrading) || !slices.Contains(w.phases, pgv1.UpgradeAnalyzing) {
		t.Errorf("phases %v: Upgrading and Analyzing not seen", w.phases)
	}
	pc := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, time.Minute)
	if u := pc.Status.Upgrade; u.ServerVersion == "" || u.From != 15 || u.To != 17 || u.Backup == "" {
		t.Errorf("status.upgrade %+v, want 15 -> 17 with the backup and the version Postgres reports", u)
	}
	if b := pc.Status.BackupStatus; b == nil || b.ServerName != "shop-pg17" {
		t.Errorf("backupStatus %+v, want serverName shop-pg17", b)
	}
	if c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionMajorUpgrade); c == nil || c.Status != metav1.ConditionTrue || c.Reason != pgv1.ReasonUpgradeSucceeded {
		t.Errorf("MajorUpgrade = %+v, want True UpgradeSucceeded", c)
	}
	db := kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, time.Minute)
	if db.Status.StatisticsMajor != 17 {
		t.Errorf("statisticsMajor %d, want 17", db.Status.StatisticsMajor)
	}
	kit.SwitchWAL(t, ns, "shop")

	t.Run("a failed pg_upgrade rolls back and waits for a retry", func(t *testing.T) { failedUpgrade(t, ns) })
}

// failedUpgrade: 17 -> 18 with the stand-in's Job failing.
func failedUpgrade(t *testing.T, ns string) {
	sim.FailMajorUpgrade(ns, "shop")
	kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) {
		c.Annotations = map[string]string{pgv1.UpgradeWithoutBackupAnnotation: "18"}
		c.Spec.PostgresVersion = ptr.To[int32](18)
	})
	pc := kit.WaitClusterReason(t, ns, "shop", pgv1.ConditionMajorUpgrade, pgv1.ReasonUpgradeFailed, 2*time.Minute)
	if u := pc.Status.Upgrade; u == nil || u.From != 17 || u.To != 18 || !strings.Contains(u.Message, "shop-1-major-upgrade") ||
		!strings.Contains(u.Message, "backoff limit") || !strings.Contains(u.Message, pgv1.RetryUpgradeAnnotation) {
		t.Errorf("status.upgrade %+v, want the Job, its failure and the retry named", u)
	}
	// CloudNativePG's rollback: the data's image again, the Job gone.
	kit.Until(t, 2*time.Minute, "the CNPG Cluster back on 17, healthy", func(ctx context.Context) (bool, error) {
		cl, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return strings.HasSuffix(cl.Spec.ImageName, ":17") && cl.Status.Phase == "Cluster in healthy state", nil
	})
	kit.Gone(t, "the failed upgrade Job", func(ctx context.Context) error {
		_, err := kube.BatchV1().Jobs(ns).Get(ctx, "shop-1-major-upgrade", metav1.GetOptions{})
		return err
	})
	pc = kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, time.Minute)
	if u := pc.Status.Upgrade; u.Phase != pgv1.UpgradeFailed {
		t.Fatalf("after the rollback status.upgrade %+v, want Failed kept until a retry", u)
	}
	if b := pc.Status.BackupStatus; b == nil || b.ServerName != "shop-pg17" {
		t.Errorf("backupStatus %+v, want the 17 system's folder again", b)
	}
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, time.Minute)

	kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) { c.Annotations[pgv1.RetryUpgradeAnnotation] = "1" })
	pc = kit.WaitClusterReason(t, ns, "shop", pgv1.ConditionMajorUpgrade, pgv1.ReasonUpgradeSucceeded, 3*time.Minute)
	if u := pc.Status.Upgrade; u.To != 18 || u.RetryRequest != "1" {
		t.Errorf("status.upgrade %+v, want the retried attempt to 18", u)
	}
}

// A major upgrade across two leader changes, each after a SIGKILL (the
// Lease expires before the standby takes over): the leader is killed
// while the pre-upgrade backup runs (held running by the stand-in), and
// its successor is killed as soon as it has asked CloudNativePG for 17;
// pg_upgrade then runs to the end with no operator at all before a third
// replica starts. The upgrade still ends Succeeded: one backup taken, the
// CNPG Cluster never naming 17 before that backup completed, the phases in
// order and never Failed, and the database Ready throughout, saying
// ClusterUpgrading, and analyzed after.
func TestMajorUpgradeSurvivesLeaderChanges(t *testing.T) {
	ns := kit.Namespace(t)
	args := []string{"--namespace", ns, "--postgres-host-map", hostMap,
		"--leader-election-namespace", ns, "--leader-election-id", "upgrade-leader"}
	a := startOperator(t, "a", args...)
	waitLease(t, ns, "upgrade-leader", "a", 30*time.Second)
	b := startOperator(t, "b", args...)
	class := backupClass(t, ns, "")
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)

	sim.StallBackups(ns, "shop")
	t.Cleanup(func() { sim.ResumeBackups(ns, "shop") })
	kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) { c.Spec.PostgresVersion = ptr.To[int32](17) })
	w := &upgradeLook{ns: ns}

	// Killed while the backup runs.
	kit.Eventually(t, 2*time.Minute, "the pre-upgrade backup running", func(ctx context.Context) (bool, string, error) {
		u, err := w.look(ctx)
		if err != nil || u == nil || u.Phase != pgv1.UpgradeBackingUp || u.Backup == "" {
			return false, fmt.Sprintf("status.upgrade %+v", u), err
		}
		_, err = pg.CNPGV1().Backups(ns).Get(ctx, u.Backup, metav1.GetOptions{})
		return err == nil, "Backup " + u.Backup, nil
	})
	a.signal(syscall.SIGKILL)
	<-a.done
	sim.ResumeBackups(ns, "shop")

	// b takes over, finds the backup completed, asks for 17, and is
	// killed at once: its Upgrading record may or may not have landed.
	kit.Eventually(t, 2*time.Minute, "the CNPG Cluster asked for 17 by the next leader", func(ctx context.Context) (bool, string, error) {
		if _, err := w.look(ctx); err != nil {
			return false, "", err
		}
		return w.switched, "CNPG Cluster still on 15", nil
	})
	b.signal(syscall.SIGKILL)
	<-b.done
	if pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{}); err == nil && pc.Status.Upgrade != nil {
		t.Logf("killed the second leader with status.upgrade at %s", pc.Status.Upgrade.Phase)
	}
	kit.Eventually(t, 2*time.Minute, "pg_upgrade done with no operator running", func(ctx context.Context) (bool, string, error) {
		cl, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		i := cl.Status.PGDataImageInfo
		return i != nil && i.MajorVersion == 17 && cl.Status.Phase == "Cluster in healthy state", fmt.Sprintf("%s %+v", cl.Status.Phase, i), nil
	})

	startOperator(t, "c", args...)
	kit.Eventually(t, 2*time.Minute, "the upgrade to 17 succeeded under the third leader", w.succeeded)
	t.Logf("phases seen: %v", w.phases)
	w.check(t)
	pc := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, time.Minute)
	u := pc.Status.Upgrade
	if u.From != 15 || u.To != 17 || u.ServerVersion == "" || u.Backup == "" {
		t.Errorf("status.upgrade %+v, want 15 -> 17 with its backup and the version Postgres reports", u)
	}
	if c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionMajorUpgrade); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("MajorUpgrade = %+v, want True", c)
	}
	backups, err := pg.CNPGV1().Backups(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range backups.Items {
		names = append(names, b.Name)
	}
	if len(names) != 1 || names[0] != u.Backup {
		t.Errorf("Backups %v, want only the one status.upgrade names (%s)", names, u.Backup)
	}
	if db := kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, time.Minute); db.Status.StatisticsMajor != 17 {
		t.Errorf("statisticsMajor %d, want 17", db.Status.StatisticsMajor)
	}
}

// upgradeLook follows an upgrade from outside across operator restarts:
// the phases status.upgrade shows, whether the CNPG Cluster named 17
// before the pre-upgrade backup completed, and the database's readiness.
type upgradeLook struct {
	ns                      string
	phases                  []pgv1.UpgradePhase
	switched, switchedEarly bool
	notReady                []pgv1.Phase
	upgradingSaid           bool
}

// succeeded is look as a kit.Eventually condition: the upgrade Succeeded.
func (w *upgradeLook) succeeded(ctx context.Context) (bool, string, error) {
	u, err := w.look(ctx)
	if err != nil || u == nil {
		return false, "no status.upgrade", err
	}
	return u.Phase == pgv1.UpgradeSucceeded, string(u.Phase) + ": " + u.Message, nil
}

// check fails the test unless the phases seen came in order, never
// Failed (a phase a pass walks through in seconds may go unseen between
// two looks), the CNPG Cluster named 17 only after
// the backup completed, and the database stayed Ready, saying
// ClusterUpgrading.
func (w *upgradeLook) check(t *testing.T) {
	t.Helper()
	order := []pgv1.UpgradePhase{pgv1.UpgradePreflight, pgv1.UpgradeBackingUp, pgv1.UpgradeUpgrading, pgv1.UpgradeAnalyzing, pgv1.UpgradeSucceeded}
	for i, p := range w.phases {
		if slices.Index(order, p) < 0 || (i > 0 && slices.Index(order, p) <= slices.Index(order, w.phases[i-1])) {
			t.Errorf("phases %v, want them in the order %v, never Failed", w.phases, order)
			break
		}
	}
	if !w.switched || w.switchedEarly {
		t.Errorf("the CNPG Cluster named 17: %v; before the pre-upgrade backup had completed: %v", w.switched, w.switchedEarly)
	}
	if len(w.notReady) > 0 {
		t.Errorf("the PostgresDatabase left Ready during the upgrade: %v", w.notReady)
	}
	if !w.upgradingSaid {
		t.Error("the PostgresDatabase never said ClusterUpgrading during the upgrade")
	}
}

func (w *upgradeLook) look(ctx context.Context) (*pgv1.MajorUpgradeStatus, error) {
	pc, err := pg.PostgresV1alpha1().PostgresClusters(w.ns).Get(ctx, "shop", metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	u := pc.Status.Upgrade
	if u != nil && (len(w.phases) == 0 || w.phases[len(w.phases)-1] != u.Phase) {
		w.phases = append(w.phases, u.Phase)
	}
	cl, err := pg.CNPGV1().Clusters(w.ns).Get(ctx, "shop", metav1.GetOptions{})
	if err != nil {
		return u, err
	}
	if !w.switched && strings.HasSuffix(cl.Spec.ImageName, ":17") {
		w.switched = true
		if u == nil || u.Backup == "" {
			w.switchedEarly = true
		} else if b, err := pg.CNPGV1().Backups(w.ns).Get(ctx, u.Backup, metav1.GetOptions{}); err != nil || b.Status.Phase != cnpgv1.BackupPhaseCompleted {
			w.switchedEarly = true
		}
	}
	db, err := pg.PostgresV1alpha1().PostgresDatabases(w.ns).Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		return u, err
	}
	if db.Status.Phase != pgv1.PhaseReady {
		w.notReady = append(w.notReady, db.Status.Phase)
	}
	if c := meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionClusterReady); c != nil && c.Reason == pgv1.ReasonClusterUpgrading {
		w.upgradingSaid = true
	}
	return u, nil
}
