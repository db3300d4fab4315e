package realcnpg

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// backupClass is smallClass archiving into the node's S3 store, with the
// credentials Secret it names made in ns (the store accepts any key), and
// superuser access on: the tests switch WAL as postgres.
func backupClass(t *testing.T, ns, schedule string) string {
	t.Helper()
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "backup-creds", Namespace: ns},
		StringData: map[string]string{"ACCESS_KEY_ID": "realcnpg", "ACCESS_SECRET_KEY": "realcnpg-secret"},
	}
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), sec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	name := "backup-" + ns
	smallClass(t, name, func(s *pgv1.ClusterSettings) {
		s.SuperuserAccess = ptr.To(true)
		s.Backup = &pgv1.BackupSpec{Schedule: schedule, ObjectStore: &pgv1.ObjectStoreSpec{
			DestinationPath:       "s3://" + S3Bucket + "/realcnpg",
			EndpointURL:           S3Endpoint,
			CredentialsSecretName: "backup-creds",
		}}
	})
	return name
}

// switchWAL closes the current WAL segment on the cluster's primary, as
// the superuser, and waits until Postgres reports it archived (through
// the plugin's sidecar into the store).
func switchWAL(t *testing.T, ns, cluster string) {
	t.Helper()
	su := connect(t, ns, cluster, "postgres", cluster+"-superuser")
	var wal string
	if err := su.QueryRow(t.Context(), "SELECT pg_walfile_name(pg_switch_wal())").Scan(&wal); err != nil {
		t.Fatalf("pg_switch_wal: %v", err)
	}
	kit.Eventually(t, 2*time.Minute, "WAL "+wal+" archived", func(ctx context.Context) (bool, string, error) {
		var last, failed string
		err := su.QueryRow(ctx, "SELECT coalesce(last_archived_wal, ''), coalesce(last_failed_wal, '') FROM pg_stat_archiver").Scan(&last, &failed)
		// WAL file names of one timeline sort in write order.
		return err == nil && last >= wal, fmt.Sprintf("last archived %q, last failed %q", last, failed), err
	})
}
