package cnpgsim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
)

// updateRecoveryWindow reports the server's recovery window in its
// ObjectStore's status.serverRecoveryWindow[serverName], as the plugin
// does after each backup: the first recoverability point is the end of the
// oldest base backup (nothing earlier can be restored), the last
// successful backup the end of the newest; failedAt, when set, is the
// time of a failed backup.
func (s *Simulator) updateRecoveryWindow(ctx context.Context, namespace string, a *archive, failedAt *metav1.Time) error {
	list, err := a.backups()
	if err != nil {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		client := s.cnpg.BarmanCloudV1().ObjectStores(namespace)
		store, err := client.Get(ctx, a.objectStore, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("get ObjectStore: %w", err)
		}
		next := store.DeepCopy()
		w := next.Status.ServerRecoveryWindow[a.serverName]
		if len(list) > 0 {
			w.FirstRecoverabilityPoint = &metav1.Time{Time: list[0].StoppedAt}
			w.LastSuccessfulBackupTime = &metav1.Time{Time: list[len(list)-1].StoppedAt}
		}
		if failedAt != nil {
			w.LastFailedBackupTime = failedAt
		}
		if next.Status.ServerRecoveryWindow == nil {
			next.Status.ServerRecoveryWindow = map[string]barmanv1.RecoveryWindow{}
		}
		next.Status.ServerRecoveryWindow[a.serverName] = w
		if equality.Semantic.DeepEqual(next.Status, store.Status) {
			return nil
		}
		_, err = client.UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: s.opts.FieldManager})
		return err
	})
}

// majorVersion is the data directory's PostgreSQL major version.
func (s *server) majorVersion() int {
	data, err := os.ReadFile(filepath.Join(s.dataDir(), "PG_VERSION"))
	if err != nil {
		return 0
	}
	v, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return v
}
