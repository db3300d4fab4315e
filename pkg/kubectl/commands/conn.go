package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
)

// connFlags choose which connection of a PostgresDatabase.
type connFlags struct {
	database string
	role     string
	pooler   bool
	anyway   bool
}

func (f *connFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.database, "database", "", "the Postgres database, when the PostgresDatabase has more than one")
	cmd.Flags().StringVar(&f.role, "role", "rw", "the role to connect as: admin, rw, ro, or the name of a login role of the database's spec.roles (migrator)")
	_ = cmd.RegisterFlagCompletionFunc("role", cobra.FixedCompletions([]cobra.Completion{"admin", "rw", "ro"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().BoolVar(&f.pooler, "pooler", false, "through the PgBouncer pooler instead of the -rw Service")
	cmd.Flags().BoolVar(&f.anyway, "anyway", false, "also for a PostgresDatabase that is not Ready (its role may not exist, or not be setpoint's)")
}

func (f *connFlags) options(withPassword bool) inspect.ConnectionOptions {
	return inspect.ConnectionOptions{Database: f.database, Role: f.role, Pooler: f.pooler, WithPassword: withPassword, Anyway: f.anyway}
}

func newConn(o *Options) *cobra.Command {
	var f connFlags
	var output string
	var showPassword bool
	cmd := &cobra.Command{
		Use:   "conn DATABASE",
		Short: "Print the connection string of a PostgresDatabase (the password only with --show-password)",
		Args:  cobra.ExactArgs(1),
	}
	f.add(cmd)
	outputFlag(cmd, &output)
	cmd.Flags().BoolVar(&showPassword, "show-password", false, "put the role's password into the connection string")
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		conn, err := c.reader().Connection(ctx, args[0], f.options(showPassword))
		if err != nil {
			return err
		}
		if showPassword && conn.CertSecret != "" {
			return fmt.Errorf("the database logs in by certificate: no password opens it (the certificate and key are in Secret %s)", conn.CertSecret)
		}
		if output != "" {
			return printConnection(o, output, conn)
		}
		fmt.Fprintln(o.Streams.Out, conn.URI())
		if conn.CertSecret != "" {
			fmt.Fprintf(o.Streams.ErrOut, "# certificate: Secret %s keys tls.crt (sslcert) and tls.key (sslkey); server CA: Secret %s key %s\n", conn.CertSecret, conn.CASecret, conn.CASecretKey)
			return nil
		}
		fmt.Fprintf(o.Streams.ErrOut, "# password: Secret %s key password; server CA: Secret %s key %s\n", conn.Secret, conn.CASecret, conn.CASecretKey)
		return nil
	})
	return cmd
}

// printConnection adds the URI to the structured view; the password is in
// it only when it was read.
func printConnection(o *Options, output string, c *inspect.Connection) error {
	v := struct {
		*inspect.Connection
		URI string `json:"uri"`
	}{c, c.URI()}
	_, err := printStructured(o.Streams.Out, output, v)
	return err
}
