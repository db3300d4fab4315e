package parity

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// copyName is the cluster restoreStep restores.
const copyName = "copy"

// restoreStep: a PostgresCluster restored from the first one's backup and
// archive (to their end), Ready; CNPG's Cluster of it, setpoint's
// restoredFrom, and the restored row, read with the source's role and
// password (roles come back with the data).
func restoreStep(t *testing.T, r *run) {
	ns := r.site.Namespace
	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: copyName, Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: r.className(), ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Restore: &pgv1.RestoreSpec{Source: clusterName}},
	}
	if _, err := r.site.PG.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PostgresCluster %s: %v", copyName, err)
	}
	r.waitFor(t, "restored PostgresCluster Ready", r.clusterPhase(copyName, pgv1.PhaseReady))
	r.observe(t, "restore/PostgresCluster", r.readPostgresCluster(copyName))
	r.observe(t, "restore/Cluster", r.readCluster(copyName))
	r.observe(t, "restore/what the copy holds", func(ctx context.Context) (Value, error) {
		return r.exec(ctx, copyName, naming.Database(databaseName, dbName).RWSecret, "SELECT count(*) FROM items")
	})
}
