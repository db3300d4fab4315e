package inspect

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// BackupHealth is the cluster's BackupHealthy condition with what to do
// about it. It is reported beside Ready, not as what blocks it: a cluster
// whose backups fail still serves and stays Ready
// (docs/adr/0003-backup-health-does-not-fail-ready.md), so an
// explanation that stopped at "Ready" would hide it.
type BackupHealth struct {
	Condition Condition `json:"condition"`
	Advice    string    `json:"advice,omitempty"`
}

// backupHealth is the BackupHealthy condition when it is not True, nil
// when backups are healthy or not configured.
func backupHealth(conds []metav1.Condition) *BackupHealth {
	for _, c := range conds {
		if c.Type == pgv1.ConditionBackupHealthy && c.Status != metav1.ConditionTrue {
			return &BackupHealth{Condition: fromMeta(c), Advice: AdviceFor(c.Type, c.Reason)}
		}
	}
	return nil
}
