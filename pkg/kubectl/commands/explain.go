package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
)

func newExplain(o *Options) *cobra.Command {
	var output string
	var cluster bool
	cmd := &cobra.Command{
		Use:     "explain DATABASE",
		Aliases: []string{"why"},
		Short:   "Why a PostgresDatabase is not Ready: the first unmet condition, the child object behind it, what to do",
		Args:    cobra.ExactArgs(1),
	}
	outputFlag(cmd, &output)
	cmd.Flags().BoolVar(&cluster, "cluster", false, "explain a PostgresCluster instead of a PostgresDatabase")
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		explain := c.reader().ExplainDatabase
		if cluster {
			explain = c.reader().ExplainCluster
		}
		e, err := explain(ctx, args[0])
		if err != nil {
			return err
		}
		if done, err := printStructured(o.Streams.Out, output, e); done {
			return err
		}
		return inspect.WriteExplanation(o.Streams.Out, e)
	})
	return cmd
}
