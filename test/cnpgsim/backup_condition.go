package cnpgsim

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// The Cluster's LastBackupSucceeded condition as CNPG words it
// (api/v1/cluster_conditions.go): set when a backup starts, succeeds or
// fails, by an optimistic-lock patch of the Cluster's conditions.
const conditionLastBackup = "LastBackupSucceeded"

func backupStarting() metav1.Condition {
	return metav1.Condition{Type: conditionLastBackup, Status: metav1.ConditionFalse, Reason: "BackupStarted", Message: "New Backup starting up"}
}

func backupSucceeded() metav1.Condition {
	return metav1.Condition{Type: conditionLastBackup, Status: metav1.ConditionTrue, Reason: "LastBackupSucceeded", Message: "Backup was successful"}
}

func backupFailed(msg string) metav1.Condition {
	return metav1.Condition{Type: conditionLastBackup, Status: metav1.ConditionFalse, Reason: "LastBackupFailed", Message: msg}
}

// setClusterCondition sets one condition of the Cluster's status, read
// live and written with its resourceVersion (a conflict reads again).
func (s *Simulator) setClusterCondition(ctx context.Context, namespace, name string, cond metav1.Condition) error {
	clusters := s.cnpg.CNPGV1().Clusters(namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c, err := clusters.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !meta.SetStatusCondition(&c.Status.Conditions, cond) {
			return nil
		}
		_, err = clusters.UpdateStatus(ctx, c, metav1.UpdateOptions{FieldManager: s.opts.FieldManager})
		return err
	})
	if err != nil {
		return fmt.Errorf("set Cluster %s/%s condition %s: %w", namespace, name, cond.Type, err)
	}
	return nil
}
