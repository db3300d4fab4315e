package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
)

func newExplain(o *Options) *cobra.Command {
	var output string
	var cluster, privileges bool
	cmd := &cobra.Command{
		Use:     "explain DATABASE",
		Aliases: []string{"why"},
		Short:   "Why a PostgresDatabase is not Ready: the first unmet condition, the child object behind it, what to do",
		Args:    cobra.ExactArgs(1),
	}
	outputFlag(cmd, &output)
	cmd.Flags().BoolVar(&cluster, "cluster", false, "explain a PostgresCluster instead of a PostgresDatabase")
	cmd.Flags().BoolVar(&privileges, "privileges", false, "also compare, per role, the privileges Postgres shows it holding with those the spec declares, as `privileges` does (a Ready PostgresDatabase)")
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		explain := c.reader().ExplainDatabase
		if cluster {
			explain = c.reader().ExplainCluster
		}
		e, err := explain(ctx, args[0])
		if err != nil {
			return err
		}
		if privileges {
			if cluster {
				return errors.New("--privileges compares a PostgresDatabase's roles: not with --cluster")
			}
			if e.Ready {
				if e.Privileges, err = o.privileges(ctx, c, args[0], "", false); err != nil {
					return err
				}
			}
		}
		if done, err := printStructured(o.Streams.Out, output, e); done {
			return err
		}
		if err := inspect.WriteExplanation(o.Streams.Out, e); err != nil || !privileges {
			return err
		}
		if !e.Ready {
			_, err := fmt.Fprintln(o.Streams.Out, "privileges: compared on a Ready PostgresDatabase only (`kubectl setpoint privileges --anyway` compares regardless)")
			return err
		}
		return inspect.WritePrivileges(o.Streams.Out, e.Privileges)
	})
	return cmd
}
