package realcnpg

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// s3BackupClass is smallClass archiving into the node's S3 store, with
// the credentials Secret it names made in ns (the store accepts any key),
// and superuser access on: the tests switch WAL as postgres (kit.SwitchWAL,
// which waits for Postgres's archiver to report the segment archived
// through the plugin's sidecar).
func s3BackupClass(t *testing.T, ns, schedule string, tune ...func(*pgv1.ClusterSettings)) string {
	t.Helper()
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "backup-creds", Namespace: ns},
		StringData: map[string]string{"ACCESS_KEY_ID": "realcnpg", "ACCESS_SECRET_KEY": "realcnpg-secret"},
	}
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), sec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	name := "backup-" + ns
	smallClass(t, name, append([]func(*pgv1.ClusterSettings){func(s *pgv1.ClusterSettings) {
		s.SuperuserAccess = ptr.To(true)
		s.Backup = &pgv1.BackupSpec{Schedule: schedule, ObjectStore: &pgv1.ObjectStoreSpec{
			DestinationPath:       "s3://" + S3Bucket + "/realcnpg",
			EndpointURL:           S3Endpoint,
			CredentialsSecretName: "backup-creds",
		}}
	}}, tune...)...)
	return name
}
