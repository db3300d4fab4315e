package contract_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

var backupGVR = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "backups"}

// The CNPG shapes of restore and on-demand backups: a Cluster bootstrapped
// by recovery from an externalClusters entry through the barman-cloud
// plugin (as the provisioner writes it for spec.restore), and a plugin
// Backup. CNPG's schema takes them with strict field validation and they
// read back through our typed subset.
func TestRestoreAndBackupApplyStrictly(t *testing.T) {
	ns := newNamespace(t)
	restored := cnpgac.Cluster("copy", ns).WithSpec(cnpgac.ClusterSpec().
		WithInstances(1).
		WithStorage(cnpgac.StorageConfiguration().WithSize("1Gi")).
		WithPlugins(cnpgac.PluginConfiguration().WithName("barman-cloud.cloudnative-pg.io").WithIsWALArchiver(true).
			WithParameters(map[string]string{"barmanObjectName": "copy-backup", "serverName": "copy"})).
		WithBootstrap(cnpgac.BootstrapConfiguration().WithRecovery(cnpgac.BootstrapRecovery().
			WithSource("restore-source").
			WithRecoveryTarget(cnpgac.RecoveryTarget().WithTargetTime("2026-11-30T17:00:00Z")))).
		WithExternalClusters(cnpgac.ExternalCluster().WithName("restore-source").WithPluginConfiguration(
			cnpgac.PluginConfiguration().WithName("barman-cloud.cloudnative-pg.io").
				WithParameters(map[string]string{"barmanObjectName": "copy-backup", "serverName": "shop"}))))
	if err := applyStrict(t, clusterGVR, ns, "copy", mustJSON(t, restored)); err != nil {
		t.Fatalf("CNPG's schema refused the restored Cluster: %v", err)
	}
	backup := cnpgac.Backup("shop-request-1", ns).WithSpec(cnpgac.BackupSpec().
		WithCluster(cnpgac.LocalObjectReference().WithName("shop")).WithMethod("plugin").
		WithPluginConfiguration(cnpgac.BackupPluginConfiguration().WithName("barman-cloud.cloudnative-pg.io")).
		WithOnline(true).WithTarget("primary"))
	if err := applyStrict(t, backupGVR, ns, "shop-request-1", mustJSON(t, backup)); err != nil {
		t.Fatalf("CNPG's schema refused the Backup: %v", err)
	}

	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "copy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := cl.Spec.Bootstrap.Recovery
	if rec.Source != "restore-source" || rec.RecoveryTarget.TargetTime != "2026-11-30T17:00:00Z" ||
		len(cl.Spec.ExternalClusters) != 1 || cl.Spec.ExternalClusters[0].PluginConfiguration.Parameters["serverName"] != "shop" {
		t.Errorf("restore read back as %+v / %+v", rec, cl.Spec.ExternalClusters)
	}
	b, err := pg.CNPGV1().Backups(ns).Get(t.Context(), "shop-request-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Spec.Cluster.Name != "shop" || b.Spec.PluginConfiguration.Name != "barman-cloud.cloudnative-pg.io" {
		t.Errorf("backup read back as %+v", b.Spec)
	}
	// CNPG makes a Backup's spec immutable.
	b.Spec.Cluster.Name = "other"
	_, err = pg.CNPGV1().Backups(ns).Update(t.Context(), b, metav1.UpdateOptions{})
	expectRefused(t, err, "BackupSpec is immutable once set")
}

// spec.restore is set at creation or never and cannot change; it may name
// the cluster itself (re-created from its own backups).
func TestRestoreRules(t *testing.T) {
	ns := newNamespace(t)
	target := metav1.NewTime(time.Date(2026, 11, 30, 17, 0, 0, 0, time.UTC))
	self := validCluster(ns)
	self.Name = "again"
	self.Spec.Restore = &pgv1.RestoreSpec{Source: "again"}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), self, metav1.CreateOptions{}); err != nil {
		t.Fatalf("restore under the source's name refused: %v", err)
	}

	bad := validCluster(ns)
	bad.Spec.Restore = &pgv1.RestoreSpec{Source: "Shop.eu"}
	_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), bad, metav1.CreateOptions{})
	expectRefused(t, err, "spec.restore.source in body should match")

	restored := validCluster(ns)
	restored.Name = "copy"
	restored.Spec.Restore = &pgv1.RestoreSpec{Source: "shop", TargetTime: &target}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), restored, metav1.CreateOptions{}); err != nil {
		t.Fatalf("valid restore refused: %v", err)
	}
	plain := validCluster(ns)
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), plain, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, cluster string
		edit          func(*pgv1.PostgresCluster)
		want          string
	}{
		{"target edited", "copy", func(c *pgv1.PostgresCluster) { c.Spec.Restore.TargetTime = nil }, "spec.restore: Invalid value: restore is immutable"},
		{"restore removed", "copy", func(c *pgv1.PostgresCluster) { c.Spec.Restore = nil }, "spec.restore: Invalid value: restore can only be set when the cluster is created"},
		{"restore added", "shop", func(c *pgv1.PostgresCluster) { c.Spec.Restore = &pgv1.RestoreSpec{Source: "other"} }, "spec.restore: Invalid value: restore can only be set when the cluster is created"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cur, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), c.cluster, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c.edit(cur)
			_, err = pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), cur, metav1.UpdateOptions{})
			expectRefused(t, err, c.want)
		})
	}
}
