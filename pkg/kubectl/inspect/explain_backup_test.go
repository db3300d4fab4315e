package inspect

import (
	"bytes"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

const archivingMessage = "CloudNativePG reports WAL archiving failing: rpc error: code = Unknown desc = missing key ACCESS_KEY_ID, inside secret backup-creds"

// A Ready cluster whose archiving fails: explain says Ready, and then
// names the cause and what to do; status shows it under Backup.
func TestReadyClusterWithFailingBackupsSaysSo(t *testing.T) {
	pc := cluster(pgv1.PhaseReady,
		cond("ProvisionerReady", "True", "ClusterHealthy", ""),
		cond("Ready", "True", "AllComponentsReady", ""),
		cond("BackupHealthy", "False", "ArchivingFailing", archivingMessage))
	pc.Status.BackupStatus = &pgv1.BackupStatus{ObjectStore: "shop-backup", ServerName: "shop"}
	e, err := reader(pc).ExplainCluster(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	if !e.Ready || e.Backup == nil || e.Backup.Condition.Reason != "ArchivingFailing" || e.Backup.Advice != AdviceFor(pgv1.ConditionBackupHealthy, pgv1.ReasonArchivingFailing) {
		t.Fatalf("explanation %+v (backup %+v): want Ready with ArchivingFailing and its advice", e, e.Backup)
	}
	var b bytes.Buffer
	if err := WriteExplanation(&b, e); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PostgresCluster default/shop is Ready.\n",
		"  backups:     BackupHealthy=False ArchivingFailing: " + archivingMessage + "\n",
		"  what to do:  " + AdviceFor(pgv1.ConditionBackupHealthy, pgv1.ReasonArchivingFailing) + "\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("explain lacks %q:\n%s", want, b.String())
		}
	}

	r := BuildClusterReport(ClusterInputs{Cluster: pc})
	b.Reset()
	if err := WriteClusterReport(&b, r, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  health", "✗ ArchivingFailing: " + archivingMessage + "\n", "  what to do", AdviceFor(pgv1.ConditionBackupHealthy, pgv1.ReasonArchivingFailing) + "\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, b.String())
		}
	}
}

// Healthy backups add nothing to explain or status.
func TestHealthyBackupsAddNothing(t *testing.T) {
	pc := cluster(pgv1.PhaseReady, cond("Ready", "True", "AllComponentsReady", ""),
		cond("BackupHealthy", "True", "BackupsHealthy", "WAL archiving works"))
	pc.Status.BackupStatus = &pgv1.BackupStatus{ObjectStore: "shop-backup", LastSuccessfulBackupTime: &metav1.Time{Time: time.Now()}}
	e, err := reader(pc).ExplainCluster(t.Context(), "shop")
	if err != nil || e.Backup != nil {
		t.Fatalf("explanation %+v, %v: want no backup warning", e, err)
	}
	if r := BuildClusterReport(ClusterInputs{Cluster: pc}); r.Backup.Health != nil {
		t.Fatalf("report's backup health %+v, want none", r.Backup.Health)
	}
}

// Every reason of BackupHealthy has advice of its own.
func TestEveryBackupHealthReasonHasAdvice(t *testing.T) {
	for _, r := range []string{pgv1.ReasonArchivingPending, pgv1.ReasonArchivingFailing, pgv1.ReasonLastBackupFailed, pgv1.ReasonBackupOverdue} {
		if AdviceFor(pgv1.ConditionBackupHealthy, r) == genericAdvice {
			t.Errorf("no advice for %s", r)
		}
	}
}
