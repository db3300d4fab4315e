package parity

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// credentialsStep: the object store's credentials are wrong, then fixed.
// The credentials Secret loses its access key, as a rotation that renamed
// the keys would leave it; the next WAL file cannot be archived, CNPG
// reports ContinuousArchiving False with the plugin's error, and setpoint
// BackupHealthy False (ArchivingFailing) while the cluster stays Ready.
// The key back, Postgres archives the file again by itself: CNPG reports
// archiving working and setpoint clears the condition.
func credentialsStep(t *testing.T, r *run) {
	r.setBackupCredentials(t, map[string][]byte{"ACCESS_SECRET_KEY": []byte("parity-secret")})
	r.fillWALUntilRefused(t)
	r.waitFor(t, "setpoint reports archiving failing", r.backupHealth(metav1.ConditionFalse, pgv1.ReasonArchivingFailing))
	r.observe(t, "credentials wrong/Cluster", r.readCluster(clusterName))
	r.observe(t, "credentials wrong/PostgresCluster", r.readPostgresCluster(clusterName))

	r.setBackupCredentials(t, map[string][]byte{"ACCESS_KEY_ID": []byte("parity"), "ACCESS_SECRET_KEY": []byte("parity-secret")})
	r.waitFor(t, "setpoint reports archiving working again", r.backupHealth(metav1.ConditionTrue, pgv1.ReasonBackupsHealthy))
	r.observe(t, "credentials fixed/Cluster", r.readCluster(clusterName))
	r.observe(t, "credentials fixed/PostgresCluster", r.readPostgresCluster(clusterName))
}

// setBackupCredentials replaces the data of the credentials Secret
// clusterStep made.
func (r *run) setBackupCredentials(t *testing.T, data map[string][]byte) {
	t.Helper()
	secrets := r.site.Kube.CoreV1().Secrets(r.site.Namespace)
	s, err := secrets.Get(t.Context(), "backup-creds", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get the backup credentials Secret: %v", err)
	}
	s.Data, s.StringData = data, nil
	if _, err := secrets.Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update the backup credentials Secret: %v", err)
	}
}

// fillWALUntilRefused fills WAL segments as the database's admin (no
// superuser here to switch WAL) until Postgres counts a failed archive:
// the plugin (or the stand-in) may take a moment to see the Secret
// change, and a segment finished before is still archived.
func (r *run) fillWALUntilRefused(t *testing.T) {
	t.Helper()
	admin := naming.Database(databaseName, dbName).AdminSecret
	q := func(ctx context.Context, sql string) (string, error) {
		out, err := r.exec(ctx, clusterName, admin, sql)
		if err != nil {
			return "", err
		}
		value, ok := strings.CutPrefix(out, "ok")
		if !ok {
			return "", fmt.Errorf("%s: %s", sql, out)
		}
		return strings.TrimPrefix(value, ": "), nil
	}
	if _, err := testkit.CloseSegmentsUntilRefused(t.Context(), q, testkit.FillSegment, testkit.Pace{Poll: time.Second, Timeout: r.site.Timeout}); err != nil {
		t.Fatal(err)
	}
}

// backupHealth waits for setpoint's BackupHealthy condition.
func (r *run) backupHealth(status metav1.ConditionStatus, reason string) func(ctx context.Context) (bool, string, error) {
	return func(ctx context.Context) (bool, string, error) {
		c, err := r.site.PG.PostgresV1alpha1().PostgresClusters(r.site.Namespace).Get(ctx, clusterName, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		cond := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionBackupHealthy)
		return cond != nil && cond.Status == status && cond.Reason == reason, fmt.Sprintf("%+v", cond), nil
	}
}
