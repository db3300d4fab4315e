package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The CNPG Cluster deleted out of band after it was Ready took its data
// with it. setpoint reports ProvisionerLost and creates nothing until
// asked; asked for latest-backup, the rows come back (base backup plus
// archived WAL) and the new cluster archives in a folder of its own;
// asked for empty, it starts empty and the PostgresDatabase is served
// again. A request with nothing lost is removed, never kept for later.
func TestLostCNPGCluster(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "lost-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := backupClass(t, ns, "")
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)

	t.Run("a request with nothing lost is removed", func(t *testing.T) {
		before := cnpgCluster(t, ns).UID
		annotatePostgres(t, ns, "PostgresCluster", "shop", map[string]string{pgv1.RecreateAnnotation: pgv1.RecreateEmpty})
		waitRequestRemoved(t, ns)
		expectEvent(t, ns, "shop", "Warning", "RecreateIgnored")
		if got := cnpgCluster(t, ns).UID; got != before {
			t.Fatalf("CNPG Cluster UID %s, want %s: a request with nothing lost re-created it", got, before)
		}
	})

	admin := connectAs(t, ns, "app-orders-config", "app-orders-admin")
	execSQL(t, admin, "CREATE TABLE items (id serial PRIMARY KEY, label text NOT NULL)")
	execSQL(t, admin, "INSERT INTO items (label) SELECT 'backed-up-' || g FROM generate_series(1, 100) AS g")
	kit.WaitBackupCompleted(t, ns, kit.RequestBackup(t, ns, "shop", "before-loss"), 2*time.Minute)
	execSQL(t, admin, "INSERT INTO items (label) SELECT 'archived-' || g FROM generate_series(1, 50) AS g")
	kit.SwitchWAL(t, ns, "shop")
	waitRecoveryWindow(t, ns, "shop")

	lost := loseCluster(t, ns)
	t.Run("latest-backup", func(t *testing.T) {
		annotatePostgres(t, ns, "PostgresCluster", "shop", map[string]string{pgv1.RecreateAnnotation: pgv1.RecreateLatestBackup})
		got := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 180*time.Second)
		waitRequestRemoved(t, ns)
		expectEvent(t, ns, "shop", "Normal", "Recreated")
		if cl := cnpgCluster(t, ns); cl.UID == lost {
			t.Fatalf("CNPG Cluster UID %s is the lost one", cl.UID)
		}
		folder := "shop-" + string(lost)[:8]
		if st := got.Status.BackupStatus; st == nil || st.ServerName != folder {
			t.Errorf("status.backupStatus = %+v, want serverName %s (the lost folder holds WAL)", got.Status.BackupStatus, folder)
		}
		if r := got.Status.RestoredFrom; r == nil || r.Source != "shop" {
			t.Errorf("status.restoredFrom = %+v, want source shop", r)
		}
		kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
		rw := dial(t, ns, "shop", "orders", "app-orders-rw", "shop-ca")
		if n := queryString(t, rw, "SELECT count(*) FILTER (WHERE label LIKE 'backed-up-%')::text || '/' || count(*) FILTER (WHERE label LIKE 'archived-%')::text FROM items"); n != "100/50" {
			t.Fatalf("recovered rows (backed up / archived after the backup) = %s, want 100/50", n)
		}
	})

	lost = loseCluster(t, ns)
	t.Run("empty", func(t *testing.T) {
		if msg := readyMessage(cluster(t, ns, "shop")); !strings.Contains(msg, `folder "shop-`) {
			t.Errorf("the second loss does not name the recreated cluster's folder: %q", msg)
		}
		annotatePostgres(t, ns, "PostgresCluster", "shop", map[string]string{pgv1.RecreateAnnotation: pgv1.RecreateEmpty})
		got := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 180*time.Second)
		waitRequestRemoved(t, ns)
		if st := got.Status.BackupStatus; st == nil || st.ServerName != "shop-"+string(lost)[:8] {
			t.Errorf("status.backupStatus = %+v, want serverName shop-%s", got.Status.BackupStatus, string(lost)[:8])
		}
		if got.Status.RestoredFrom != nil {
			t.Errorf("status.restoredFrom = %+v on an empty cluster", got.Status.RestoredFrom)
		}
		kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
		rw := dial(t, ns, "shop", "orders", "app-orders-rw", "shop-ca")
		if reg := queryString(t, rw, "SELECT coalesce(to_regclass('items')::text, 'none')"); reg != "none" {
			t.Fatalf("table %s in a cluster asked to start empty", reg)
		}
	})

	// The PostgresCluster's own deletion is no loss: it finishes.
	kit.DeleteCluster(t, ns, "shop")
	kit.Gone(t, "CNPG Cluster", func(ctx context.Context) error {
		_, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		return err
	})
}

// loseCluster deletes the CNPG Cluster out of band and proves setpoint
// reports the loss and does not create it again: a watch started before
// the delete sees no new Cluster "shop" up to a barrier, the creation of
// an unrelated Cluster after a later pass (a refused request, whose
// message setpoint writes) — watch events come in resourceVersion order.
// It returns the lost UID.
func loseCluster(t *testing.T, ns string) (lost types.UID) {
	t.Helper()
	client := pg.CNPGV1().Clusters(ns)
	list, err := client.List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := client.Watch(t.Context(), metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	cl := cnpgCluster(t, ns)
	lost = cl.UID
	if err := client.Delete(t.Context(), "shop", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &lost}}); err != nil {
		t.Fatal(err)
	}
	failed := waitReason(t, ns, "shop", pgv1.ReasonProvisionerLost, 60*time.Second)
	msg := readyMessage(failed)
	for _, want := range []string{string(lost), "was deleted after it had been Ready", pgv1.RecreateAnnotation + "=" + pgv1.RecreateLatestBackup, pgv1.RecreateAnnotation + "=" + pgv1.RecreateEmpty} {
		if failed.Status.Phase != pgv1.PhaseFailed || !strings.Contains(msg, want) {
			t.Errorf("phase %s, message %q lacks %q", failed.Status.Phase, msg, want)
		}
	}
	expectEvent(t, ns, "shop", "Warning", pgv1.ReasonProvisionerLost)
	waitDatabaseNot(t, ns, "app", pgv1.PhaseReady)

	// A later pass: a request setpoint refuses, and says so.
	annotatePostgres(t, ns, "PostgresCluster", "shop", map[string]string{pgv1.RecreateAnnotation: "please"})
	kit.Until(t, 60*time.Second, "the refused request in status", func(ctx context.Context) (bool, error) {
		return strings.Contains(readyMessage(cluster(t, ns, "shop")), `Request refused: postgres.setpoint.dev/recreate="please"`), nil
	})
	barrier := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "barrier", Namespace: ns},
		Spec: cnpgv1.ClusterSpec{Instances: 1, Storage: &cnpgv1.StorageConfiguration{Size: "1Gi"}}}
	if _, err := client.Create(t.Context(), barrier, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Delete(context.WithoutCancel(t.Context()), "barrier", metav1.DeleteOptions{}) }()
	for ev := range w.ResultChan() {
		obj, ok := ev.Object.(*cnpgv1.Cluster)
		if !ok {
			t.Fatalf("watch: %v", ev.Object)
		}
		if obj.Name == "barrier" && ev.Type == watch.Added {
			return lost
		}
		if obj.Name == "shop" && obj.UID != lost {
			t.Fatalf("a CNPG Cluster %s (%s) was created for the lost one without a request", obj.UID, ev.Type)
		}
	}
	t.Fatal("watch ended before the barrier")
	return lost
}

func cnpgCluster(t *testing.T, ns string) *cnpgv1.Cluster {
	t.Helper()
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("CNPG Cluster: %v", err)
	}
	return cl
}

func waitRequestRemoved(t *testing.T, ns string) {
	t.Helper()
	kit.Until(t, 60*time.Second, "recreate request removed", func(ctx context.Context) (bool, error) {
		_, there := cluster(t, ns, "shop").Annotations[pgv1.RecreateAnnotation]
		return !there, nil
	})
}

// waitRecoveryWindow waits until the plugin reports a completed backup of
// serverName in the cluster's ObjectStore: what latest-backup checks.
func waitRecoveryWindow(t *testing.T, ns, serverName string) {
	t.Helper()
	kit.Until(t, 60*time.Second, "recovery window of "+serverName, func(ctx context.Context) (bool, error) {
		os, err := pg.BarmanCloudV1().ObjectStores(ns).Get(ctx, "shop-backup", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		w, ok := os.Status.ServerRecoveryWindow[serverName]
		return ok && w.LastSuccessfulBackupTime != nil, nil
	})
}

// waitDatabaseNot waits until the PostgresDatabase has left phase.
func waitDatabaseNot(t *testing.T, ns, name string, phase pgv1.Phase) {
	t.Helper()
	kit.Until(t, 60*time.Second, "PostgresDatabase "+name+" not "+string(phase), func(ctx context.Context) (bool, error) {
		d, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && d.Status.Phase != phase, err
	})
}
