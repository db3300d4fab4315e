package e2e_test

import (
	"context"
	"slices"
	"strings"
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
// Cluster names 17, the database Ready throughout and analyzed after, the
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
	var phases []pgv1.UpgradePhase
	var switchedBeforeBackup, databaseLeftReady bool
	kit.Eventually(t, 3*time.Minute, "the upgrade to 17 succeeded", func(ctx context.Context) (bool, string, error) {
		pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil || pc.Status.Upgrade == nil {
			return false, "no status.upgrade", err
		}
		u := pc.Status.Upgrade
		if len(phases) == 0 || phases[len(phases)-1] != u.Phase {
			phases = append(phases, u.Phase)
		}
		cl, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		if strings.HasSuffix(cl.Spec.ImageName, ":17") && u.Backup != "" {
			b, err := pg.CNPGV1().Backups(ns).Get(ctx, u.Backup, metav1.GetOptions{})
			if err != nil || b.Status.Phase != cnpgv1.BackupPhaseCompleted {
				switchedBeforeBackup = true
			}
		}
		db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "app", metav1.GetOptions{})
		if err == nil && db.Status.Phase != pgv1.PhaseReady {
			databaseLeftReady = true
		}
		return u.Phase == pgv1.UpgradeSucceeded, string(u.Phase) + ": " + u.Message, nil
	})
	want := []pgv1.UpgradePhase{pgv1.UpgradePreflight, pgv1.UpgradeBackingUp, pgv1.UpgradeUpgrading, pgv1.UpgradeAnalyzing, pgv1.UpgradeSucceeded}
	for i, p := range phases {
		if i > 0 && slices.Index(want, p) <= slices.Index(want, phases[i-1]) {
			t.Errorf("phases %v, want them in the order %v", phases, want)
		}
	}
	if slices.Index(phases, pgv1.UpgradeUpgrading) < 0 || slices.Index(phases, pgv1.UpgradeAnalyzing) < 0 {
		t.Errorf("phases %v: Upgrading and Analyzing not seen", phases)
	}
	if switchedBeforeBackup {
		t.Error("the CNPG Cluster named 17 before the pre-upgrade backup had completed")
	}
	if databaseLeftReady {
		t.Error("the PostgresDatabase left Ready during the upgrade")
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
