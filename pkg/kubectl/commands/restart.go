package commands

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func newRestart(o *Options) *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "restart CLUSTER",
		Short: "Ask setpoint for a rolling restart of a PostgresCluster's instances (annotation " + pgv1.RestartAnnotation + ")",
		Long: "Sets " + pgv1.RestartAnnotation + " to a new request id; setpoint forwards it to its CNPG Cluster as " +
			"kubectl.kubernetes.io/restartedAt, and CloudNativePG restarts the replicas one by one, then the primary. " +
			"No Pod is deleted by the plugin (docs/adr/0018-day-two-actions-through-cnpg.md).",
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringVar(&id, "id", "", "request id (default: the current UTC time, RFC 3339)")
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		if id == "" {
			id = time.Now().UTC().Format(time.RFC3339)
		}
		patch, err := annotationPatch(map[string]*string{pgv1.RestartAnnotation: &id})
		if err != nil {
			return err
		}
		if _, err := c.pg.PostgresV1alpha1().PostgresClusters(c.namespace).Patch(ctx, args[0], types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("annotate PostgresCluster %s/%s: %w", c.namespace, args[0], err)
		}
		fmt.Fprintf(o.Streams.Out, "postgrescluster/%s: restart %s requested; kubectl setpoint status %s shows CloudNativePG rolling the instances\n", args[0], id, args[0])
		return nil
	})
	return cmd
}
