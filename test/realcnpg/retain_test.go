package realcnpg

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Retain with backups on real CNPG: deleting the PostgresCluster releases
// the ObjectStore and the ScheduledBackup with the CNPG Cluster, which
// goes on archiving through the plugin (a WAL switch after the
// PostgresCluster is gone is archived), and a new PostgresCluster of the
// same name adopts them and archives on.
func TestRetainKeepsArchivingOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	class := s3BackupClass(t, ns, "0 2 * * *")
	retain := func(name string, policy pgv1.DeletionPolicy) *pgv1.PostgresCluster {
		c := &pgv1.PostgresCluster{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec:       pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: policy},
		}
		got, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	retain("kept", pgv1.DeletionPolicyRetain)
	kit.WaitCluster(t, ns, "kept", pgv1.PhaseReady, 6*time.Minute)
	kit.SwitchWAL(t, ns, "kept")
	kit.DeleteCluster(t, ns, "kept")
	kit.SettleGC(t, ns)
	store, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), "kept-backup", metav1.GetOptions{})
	if err != nil || len(store.OwnerReferences) != 0 {
		t.Fatalf("retained ObjectStore: %v, owners %v", err, store.OwnerReferences)
	}
	sb, err := pg.CNPGV1().ScheduledBackups(ns).Get(t.Context(), "kept-backup", metav1.GetOptions{})
	if err != nil || len(sb.OwnerReferences) != 0 {
		t.Fatalf("retained ScheduledBackup: %v, owners %v", err, sb.OwnerReferences)
	}
	kit.SwitchWAL(t, ns, "kept") // archived by real CNPG with no PostgresCluster around

	again := retain("kept", pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "kept", pgv1.PhaseReady, 3*time.Minute)
	kit.Eventually(t, time.Minute, "ObjectStore and ScheduledBackup adopted", func(ctx context.Context) (bool, string, error) {
		store, err := pg.BarmanCloudV1().ObjectStores(ns).Get(ctx, "kept-backup", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		sb, err := pg.CNPGV1().ScheduledBackups(ns).Get(ctx, "kept-backup", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		owned := func(m metav1.Object) bool {
			ref := metav1.GetControllerOf(m)
			return ref != nil && ref.UID == again.UID
		}
		return owned(store) && owned(sb), fmt.Sprintf("ObjectStore owners %v, ScheduledBackup owners %v", store.OwnerReferences, sb.OwnerReferences), nil
	})
	kit.SwitchWAL(t, ns, "kept")
}
