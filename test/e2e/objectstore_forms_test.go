package e2e_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A class's store in Google Cloud Storage through GKE workload identity,
// then moved to S3 with access keys, as the operator writes it: the
// ObjectStore carries googleCredentials and the CNPG Cluster the
// ServiceAccount annotation that binds the identity; the stand-in, which
// reaches no cloud, refuses the store in its own words and setpoint says
// so (BackupHealthy ArchivingFailing) while the cluster stays Ready. With
// the class's store moved, the ObjectStore holds only the S3 form (the
// Google one and the annotation go with setpoint's next apply) and
// archiving works: the WAL lands in the S3 folder.
func TestACloudStoreFormAndAMoveToS3(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s")
	class := "e2e-" + ns
	const gsa = "pg-backups@e2e.iam.gserviceaccount.com"
	newClass(t, class, pgv1.ClusterSettings{
		Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
		Backup: &pgv1.BackupSpec{ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "gs://e2e/" + ns,
			GoogleCredentials:         &pgv1.GoogleCredentialsSpec{GKEEnvironment: true},
			ServiceAccountAnnotations: map[string]string{"iam.gke.io/gcp-service-account": gsa}}},
	})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)

	store, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), "shop-backup", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := store.Spec.Configuration; c.GoogleCredentials == nil || !ptr.Deref(c.GoogleCredentials.GKEEnvironment, false) ||
		c.S3Credentials != nil || c.DestinationPath != "gs://e2e/"+ns+"/"+ns {
		t.Fatalf("ObjectStore configuration %+v, want googleCredentials.gkeEnvironment at gs://e2e/%s/%s", c, ns, ns)
	}
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sa := cl.Spec.ServiceAccountTemplate; sa == nil || sa.Metadata.Annotations["iam.gke.io/gcp-service-account"] != gsa {
		t.Fatalf("CNPG Cluster serviceAccountTemplate %+v, want the GKE annotation", sa)
	}
	c := waitBackupHealth(t, ns, pgv1.ReasonArchivingFailing,
		"cnpgsim: the CNPG stand-in's object store is a local folder standing in for S3: it does not reach Google Cloud Storage", 60*time.Second)
	if c.Status.Phase != pgv1.PhaseReady {
		t.Errorf("a store the stand-in cannot reach changed the phase: %s", c.Status.Phase)
	}

	setBackupCreds(t, ns, true)
	cc, err := pg.PostgresV1alpha1().PostgresClusterClasses().Get(t.Context(), class, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cc.Spec.Backup.ObjectStore = &pgv1.ObjectStoreSpec{DestinationPath: "s3://e2e/" + ns, CredentialsSecretName: "backup-creds"}
	if _, err := pg.PostgresV1alpha1().PostgresClusterClasses().Update(t.Context(), cc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Eventually(t, 60*time.Second, "the ObjectStore and the CNPG Cluster moved to S3 keys", func(ctx context.Context) (bool, string, error) {
		store, err := pg.BarmanCloudV1().ObjectStores(ns).Get(ctx, "shop-backup", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		cl, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		c := store.Spec.Configuration
		done := c.GoogleCredentials == nil && c.S3Credentials != nil && c.S3Credentials.AccessKeyID != nil &&
			c.DestinationPath == "s3://e2e/"+ns+"/"+ns && cl.Spec.ServiceAccountTemplate == nil
		return done, fmt.Sprintf("ObjectStore %+v, serviceAccountTemplate %+v", c, cl.Spec.ServiceAccountTemplate), nil
	})
	// A new segment wakes Postgres's archiver, which retries the refused
	// ones first: they land in the S3 folder.
	kit.SwitchWAL(t, ns, "shop")
	waitBackupHealth(t, ns, pgv1.ReasonBackupsHealthy, "", 60*time.Second)
}
