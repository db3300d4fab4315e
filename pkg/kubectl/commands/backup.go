package commands

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func newBackup(o *Options) *cobra.Command {
	var id string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "backup CLUSTER",
		Short: "Ask setpoint for an on-demand backup (annotation " + pgv1.BackupRequestAnnotation + ")",
		Long: "Sets " + pgv1.BackupRequestAnnotation + " to a new request id; setpoint creates one CloudNativePG Backup for it " +
			"and records it in status.backupStatus.lastRequest, which --wait waits for.",
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringVar(&id, "id", "", "request id (default: the current UTC time, 20261130180101)")
	cmd.Flags().DurationVar(&timeout, "wait", 0, "wait up to this long for setpoint to answer the request (0: do not wait)")
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		if id == "" {
			id = requestID(time.Now())
		}
		patch, err := annotationPatch(map[string]*string{pgv1.BackupRequestAnnotation: &id})
		if err != nil {
			return err
		}
		clusters := c.pg.PostgresV1alpha1().PostgresClusters(c.namespace)
		if _, err := clusters.Patch(ctx, args[0], types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("annotate PostgresCluster %s/%s: %w", c.namespace, args[0], err)
		}
		fmt.Fprintf(o.Streams.Out, "postgrescluster/%s: backup %s requested\n", args[0], id)
		if timeout == 0 {
			return nil
		}
		return waitBackupAnswer(ctx, o, c, args[0], id, timeout)
	})
	return cmd
}

// waitBackupAnswer waits for status.backupStatus.lastRequest to name the
// request and prints setpoint's answer: the Backup, or why there is none.
func waitBackupAnswer(ctx context.Context, o *Options, c *clients, name, id string, timeout time.Duration) error {
	var answer *pgv1.BackupRequestStatus
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		pc, err := c.pg.PostgresV1alpha1().PostgresClusters(c.namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("get PostgresCluster %s/%s: %w", c.namespace, name, err)
		}
		if b := pc.Status.BackupStatus; b != nil && b.LastRequest != nil && b.LastRequest.ID == id {
			answer = b.LastRequest
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for setpoint to answer backup request %s: %w", id, err)
	}
	if answer.Backup == "" {
		return fmt.Errorf("no Backup for request %s: %s", id, answer.Message)
	}
	fmt.Fprintf(o.Streams.Out, "backup.postgresql.cnpg.io/%s created (kubectl get backup %s -o jsonpath='{.status.phase}')\n", answer.Backup, answer.Backup)
	return nil
}
