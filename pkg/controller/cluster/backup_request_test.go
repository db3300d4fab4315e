package cluster

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	pgfake "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

func requestPass(id string, objectStore bool) (*pass, *pgfake.Clientset) {
	cs := pgfake.NewClientset()
	p := testPass()
	p.cluster.Annotations = map[string]string{pgv1.BackupRequestAnnotation: id}
	p.want = &desired{}
	if objectStore {
		p.want.ObjectStore = &pgv1.ObjectStoreSpec{DestinationPath: "s3://b"}
	}
	p.deps = &deps{pg: cs, recorder: discard{}}
	return p, cs
}

// One request id makes one Backup, once: a repeated pass and a deleted
// Backup do not bring another; a new id does.
func TestBackupRequestCreatesOneBackupPerID(t *testing.T) {
	t.Parallel()
	p, cs := requestPass("r1", true)
	if err := reconcileBackupRequest(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	name := backupRequestName("shop", "r1")
	b, err := cs.CNPGV1().Backups("ns").Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Backup not created: %v", err)
	}
	want := &cnpgv1.Backup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: shopLabels(),
			OwnerReferences: []metav1.OwnerReference{shopRef}},
		Spec: cnpgv1.BackupSpec{Cluster: cnpgv1.LocalObjectReference{Name: "shop"}, Method: cnpgv1.BackupMethodPlugin,
			PluginConfiguration: &cnpgv1.BackupPluginConfiguration{Name: barmanPlugin}},
	}
	if d := ct.Diff(want, b); d != "" {
		t.Fatalf("Backup as stored: %s", d)
	}
	if r := p.status.BackupStatus.LastRequest; r == nil || r.ID != "r1" || r.Backup != name {
		t.Fatalf("lastRequest = %+v", r)
	}

	if err := cs.CNPGV1().Backups("ns").Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	cs.ClearActions()
	if err := reconcileBackupRequest(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if n := len(cs.Actions()); n != 0 {
		t.Fatalf("a handled request sent %d requests: %v", n, cs.Actions())
	}

	p.cluster.Annotations[pgv1.BackupRequestAnnotation] = "r2"
	if err := reconcileBackupRequest(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CNPGV1().Backups("ns").Get(t.Context(), backupRequestName("shop", "r2"), metav1.GetOptions{}); err != nil {
		t.Fatalf("second request: %v", err)
	}
	if backupRequestName("shop", "r1") == backupRequestName("shop", "r2") || backupRequestName("shop", "r1") != name {
		t.Fatal("names are not deterministic per request id")
	}
}

// Without an object store there is nowhere to back up to: the request is
// answered in status and nothing is written.
func TestBackupRequestWithoutObjectStore(t *testing.T) {
	t.Parallel()
	p, cs := requestPass("r1", false)
	if err := reconcileBackupRequest(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if n := len(cs.Actions()); n != 0 {
		t.Fatalf("sent %d requests", n)
	}
	if r := p.status.BackupStatus.LastRequest; r == nil || r.ID != "r1" || r.Backup != "" || !strings.Contains(r.Message, "objectStore") {
		t.Fatalf("lastRequest = %+v", r)
	}
}

// A Backup of that name setpoint did not create is never touched.
func TestBackupRequestLeavesForeignBackup(t *testing.T) {
	t.Parallel()
	name := backupRequestName("shop", "r1")
	foreign := &cnpgv1.Backup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
	p, cs := requestPass("r1", true)
	if _, err := cs.CNPGV1().Backups("ns").Create(t.Context(), foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cs.ClearActions()
	if err := reconcileBackupRequest(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	for _, a := range cs.Actions() {
		if a.GetVerb() != "get" {
			t.Fatalf("wrote to a foreign Backup: %v", a)
		}
	}
	if r := p.status.BackupStatus.LastRequest; r == nil || r.Backup != "" || r.Message == "" {
		t.Fatalf("lastRequest = %+v", r)
	}
}

// spec.restore becomes CNPG's bootstrap.recovery from an externalClusters
// entry through the barman-cloud plugin, and status.restoredFrom once the
// CNPG Cluster recovered (provisioner_restore_test.go).
func TestRestoreSpec(t *testing.T) {
	t.Parallel()
	p := testPass()
	p.obs = &observation{}
	target := metav1.Unix(1_800_000_000, 0)
	p.cluster.Spec.Restore = &pgv1.RestoreSpec{Source: "old", TargetTime: &target}
	spec := desiredClusterSpecForRestore(p)
	rec := spec.Bootstrap.Recovery
	if *rec.Source != restoreSourceName || *rec.RecoveryTarget.TargetTime != "2027-01-15T08:00:00Z" {
		t.Fatalf("recovery = %+v / %s", *rec.Source, *rec.RecoveryTarget.TargetTime)
	}
	ext := spec.ExternalClusters[0]
	if *ext.Name != restoreSourceName || *ext.PluginConfiguration.Name != barmanPlugin ||
		ext.PluginConfiguration.Parameters["barmanObjectName"] != "shop-backup" || ext.PluginConfiguration.Parameters["serverName"] != "old" {
		t.Fatalf("externalClusters = %+v", ext)
	}
	if r := p.status.RestoredFrom; r != nil {
		t.Fatalf("restoredFrom before CNPG recovered anything: %+v", r)
	}
	p.obs.cnpg = recoveringCNPG(p, "Cluster in healthy state", "", true)
	desiredClusterSpecForRestore(p)
	if r := p.status.RestoredFrom; r == nil || r.Source != "old" || r.ObjectStore != "shop-backup" || !r.TargetTime.Equal(&target) {
		t.Fatalf("restoredFrom = %+v", r)
	}
	p.cluster.Spec.Restore.ObjectStoreName = "old-backup"
	spec = desiredClusterSpecForRestore(p)
	if p.status.RestoredFrom.ObjectStore != "old-backup" || spec.ExternalClusters[0].PluginConfiguration.Parameters["barmanObjectName"] != "old-backup" {
		t.Fatalf("objectStoreName ignored: %+v", p.status.RestoredFrom)
	}
	p.cluster.Spec.Restore = nil
	if spec := desiredClusterSpecForRestore(p); spec.Bootstrap != nil || spec.ExternalClusters != nil || p.status.RestoredFrom != nil {
		t.Fatal("restore fields without spec.restore")
	}
}

func desiredClusterSpecForRestore(p *pass) *cnpgac.ClusterSpecApplyConfiguration {
	spec := cnpgac.ClusterSpec()
	withRestore(p, spec)
	return spec
}
