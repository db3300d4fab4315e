package parity

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The steps that write CNPG objects directly, as another tool on the
// cluster would, to see CNPG's own refusals.

// roleConflictStep: a DatabaseRole applied, then a second one for the
// same role name, which CNPG refuses while the first manages it.
func roleConflictStep(t *testing.T, r *run) {
	first, second := "parity-first", "parity-second"
	r.createDatabaseRole(t, first)
	r.waitFor(t, "DatabaseRole "+first+" applied", func(ctx context.Context) (bool, string, error) {
		st, err := r.cnpgStatus(ctx, kindRole, first)
		if err != nil {
			return false, "", err
		}
		return st.applied != nil && *st.applied, fmt.Sprintf("%+v", st.status), nil
	})
	r.createDatabaseRole(t, second)
	r.waitFor(t, "CNPG answers for "+second, r.answered(kindRole, second))
	r.observe(t, "role conflict/DatabaseRoles", func(ctx context.Context) (Value, error) {
		out := map[string]any{}
		for _, name := range []string{first, second} {
			v, err := r.normalized(kindRole, name)(ctx)
			if err != nil {
				return nil, err
			}
			out[name] = v
		}
		return out, nil
	})
}

// createDatabaseRole makes a DatabaseRole named name for the role
// parity_extra (no login, no password, dropped with the object).
func (r *run) createDatabaseRole(t *testing.T, name string) {
	t.Helper()
	d := &cnpgv1.DatabaseRole{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: r.site.Namespace},
		Spec: cnpgv1.DatabaseRoleSpec{
			Cluster:                   cnpgv1.LocalObjectReference{Name: clusterName},
			Name:                      "parity_extra",
			Comment:                   "made by the parity scenarios",
			DatabaseRoleReclaimPolicy: cnpgv1.DatabaseRoleReclaimDelete,
		},
	}
	if _, err := r.site.PG.CNPGV1().DatabaseRoles(r.site.Namespace).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create DatabaseRole %s: %v", name, err)
	}
}

// databaseRefusedStep: a CNPG Database whose owner role does not exist;
// CNPG reports Postgres's refusal.
func databaseRefusedStep(t *testing.T, r *run) {
	name := "parity-orphan"
	d := &cnpgv1.Database{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: r.site.Namespace},
		Spec: cnpgv1.DatabaseSpec{
			Cluster: cnpgv1.LocalObjectReference{Name: clusterName},
			Name:    "parity_orphan",
			Owner:   "parity_nobody",
		},
	}
	if _, err := r.site.PG.CNPGV1().Databases(r.site.Namespace).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Database: %v", err)
	}
	r.waitFor(t, "CNPG answers for "+name, r.answered(kindDatabase, name))
	r.observe(t, "database refused/Database", r.normalized(kindDatabase, name))
}

// backupStep: an on-demand backup asked as a user asks it (setpoint's
// annotation); CNPG's Backup completes, the ObjectStore reports the
// recovery window, and setpoint reports both.
func backupStep(t *testing.T, r *run) {
	r.patchCluster(t, fmt.Sprintf(`{"metadata":{"annotations":{%q:"parity-1"}}}`, pgv1.BackupRequestAnnotation))
	var backup string
	r.waitFor(t, "backup request answered", func(ctx context.Context) (bool, string, error) {
		c, err := r.site.PG.PostgresV1alpha1().PostgresClusters(r.site.Namespace).Get(ctx, clusterName, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		b := c.Status.BackupStatus
		if b == nil || b.LastRequest == nil || b.LastRequest.ID != "parity-1" {
			return false, fmt.Sprintf("%+v", b), nil
		}
		if b.LastRequest.Backup == "" {
			t.Fatalf("backup request refused: %s", b.LastRequest.Message)
		}
		backup = b.LastRequest.Backup
		return true, "", nil
	})
	// Observed once over: their last states, not the way there (a real
	// backup takes tens of seconds, and writing the record would settle
	// on a step of it).
	r.waitFor(t, "Backup "+backup+" completed", func(ctx context.Context) (bool, string, error) {
		b, err := r.site.PG.CNPGV1().Backups(r.site.Namespace).Get(ctx, backup, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		if b.Status.Phase == cnpgv1.BackupPhaseFailed {
			t.Fatalf("Backup %s failed: %s", backup, b.Status.Error)
		}
		return b.Status.Phase == cnpgv1.BackupPhaseCompleted, "phase " + b.Status.Phase, nil
	})
	r.waitFor(t, "setpoint reports the backup", func(ctx context.Context) (bool, string, error) {
		c, err := r.site.PG.PostgresV1alpha1().PostgresClusters(r.site.Namespace).Get(ctx, clusterName, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		b := c.Status.BackupStatus
		return b != nil && b.LastSuccessfulBackupTime != nil, fmt.Sprintf("%+v", b), nil
	})
	r.observe(t, "backup/Backup", func(ctx context.Context) (Value, error) {
		b, err := r.site.PG.CNPGV1().Backups(r.site.Namespace).Get(ctx, backup, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return Normalize(b.Status, b.Generation)
	})
	r.observe(t, "backup/ObjectStore", r.readObjectStore)
	r.observe(t, "backup/Cluster", r.readCluster(clusterName))
	r.observe(t, "backup/PostgresCluster", r.readPostgresCluster(clusterName))
}
