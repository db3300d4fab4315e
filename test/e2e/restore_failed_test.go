package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A restore that cannot succeed ends Failed with RestoreFailed and
// CloudNativePG's own message, with no status.restoredFrom, and stays so
// quietly: poked again and again (each poke a pass of setpoint and a sync
// of the CNPG stand-in), neither writes its status again. Three ways to
// fail: a source with no backups, an ObjectStore that does not exist, a
// target time before the first backup.
func TestFailedRestoreStaysFailedQuietly(t *testing.T) {
	ns := kit.Namespace(t)
	op := startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := backupClass(t, ns, "")
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	b := kit.WaitBackupCompleted(t, ns, kit.RequestBackup(t, ns, "shop", "first"), 2*time.Minute)

	failing := map[string]struct {
		restore pgv1.RestoreSpec
		message string // in the Ready message: CNPG's phase reason
		jobLog  string // in the stand-in's log of the recovery Job
	}{
		"ghost": {pgv1.RestoreSpec{Source: "nobody"},
			"Instance creation failed for the following jobs: ghost-1-full-recovery", "no target backup found"},
		"nostore": {pgv1.RestoreSpec{Source: "shop", ObjectStoreName: "missing"},
			`objectstores.barmancloud.cnpg.io "missing" not found`, ""},
		"early": {pgv1.RestoreSpec{Source: "shop", TargetTime: &metav1.Time{Time: b.Status.StartedAt.Add(-time.Hour)}},
			"Instance creation failed for the following jobs: early-1-full-recovery", "no target backup found"},
	}
	for name, f := range failing {
		c := &pgv1.PostgresCluster{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec:       pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete, Restore: &f.restore},
		}
		if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	counts := map[string]*statusChanges{}
	for name, f := range failing {
		got := waitReason(t, ns, name, pgv1.ReasonRestoreFailed, 120*time.Second)
		if msg := readyMessage(got); got.Status.Phase != pgv1.PhaseFailed || !strings.Contains(msg, f.message) {
			t.Errorf("%s: phase %s, message %q, want Failed with %q", name, got.Status.Phase, msg, f.message)
		}
		if got.Status.RestoredFrom != nil {
			t.Errorf("%s: status.restoredFrom = %+v on a cluster that restored nothing", name, got.Status.RestoredFrom)
		}
		if log := sim.RecoveryLog(ns, name); !strings.Contains(log, f.jobLog) {
			t.Errorf("%s: the recovery Job's log says %q, want %q", name, log, f.jobLog)
		}
		counts[name] = watchClusterStatus(t, ns, name)
	}

	// Each poke wakes a pass of every failed cluster (its annotations
	// changed) and a sync of its CNPG Cluster in the stand-in.
	passes := op.metric(t, "setpoint_reconcile_total", "name", "postgrescluster")
	const pokes = 5
	for i := range pokes {
		for name := range failing {
			poke(t, ns, name, i)
		}
		want := passes + float64((i+1)*len(failing))
		kit.Until(t, 30*time.Second, fmt.Sprintf("poke %d seen by every cluster", i), func(context.Context) (bool, error) {
			return op.metric(t, "setpoint_reconcile_total", "name", "postgrescluster") >= want, nil
		})
	}
	settle(t, op)
	ran := op.metric(t, "setpoint_reconcile_total", "name", "postgrescluster") - passes
	t.Logf("%v cluster passes for %d pokes of %d failed clusters", ran, pokes, len(failing))
	for name, c := range counts {
		if n, seen := c.count(); n != 0 {
			t.Errorf("%s: %d status writes while Failed (%d pokes): %v", name, n, pokes, seen)
		}
	}
	// One pass per poke of the cluster itself and one per poke of its
	// CNPG Cluster, a few more for the stand-in's answers: a small
	// constant per poke, where the storm was thousands a minute.
	if limit := float64(pokes * len(failing) * 4); ran > limit {
		t.Errorf("%v passes for %d pokes of %d clusters, want at most %v", ran, pokes, len(failing), limit)
	}
}

// poke changes an annotation of the PostgresCluster and of its CNPG
// Cluster: metadata only, which wakes both operators.
func poke(t *testing.T, ns, name string, i int) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{"e2e.setpoint.dev/poke": fmt.Sprint(i)}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("poke PostgresCluster %s: %v", name, err)
	}
	if _, err := pg.CNPGV1().Clusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("poke CNPG Cluster %s: %v", name, err)
	}
}
