package commands

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
)

func newStatus(o *Options) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "status CLUSTER",
		Short: "One screen on a PostgresCluster: phase, conditions, instances, pooler, backups, and its databases",
		Args:  cobra.ExactArgs(1),
	}
	outputFlag(cmd, &output)
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		r, err := c.reader().ClusterReport(ctx, args[0])
		if err != nil {
			return err
		}
		if done, err := printStructured(o.Streams.Out, output, r); done {
			return err
		}
		return inspect.WriteClusterReport(o.Streams.Out, r, time.Now())
	})
	return cmd
}
