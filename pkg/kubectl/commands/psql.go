package commands

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
)

func newPsql(o *Options) *cobra.Command {
	var f connFlags
	cmd := &cobra.Command{
		Use:   "psql DATABASE [-- PSQL-ARGS...]",
		Short: "Run the local psql on a PostgresDatabase through a port-forward; the password goes in the environment only",
		Args:  cobra.MinimumNArgs(1),
	}
	f.add(cmd)
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		conn, err := c.reader().Connection(ctx, args[0], f.options(true))
		if err != nil {
			return err
		}
		ca, err := c.reader().CACertificate(ctx, conn)
		if err != nil {
			return err
		}
		return o.psql(ctx, c, conn, ca, args[1:])
	})
	return cmd
}

// psql forwards a local port to the connection's Service and runs psql on
// it. libpq verifies the server as an application would: PGHOST is the
// Service's name (checked against the certificate, sslmode from the
// ConfigMap), PGHOSTADDR the local end of the forward.
func (o *Options) psql(ctx context.Context, c *clients, conn *inspect.Connection, ca []byte, extra []string) error {
	service, namespace, err := serviceOf(conn.Host)
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(conn.Port)
	if err != nil {
		return fmt.Errorf("port %q: %w", conn.Port, err)
	}
	fw := o.Forwarder
	if fw == nil {
		fw = apiForwarder{config: c.config, kube: c.kube, log: o.Streams.ErrOut}
	}
	local, stop, err := fw.Forward(ctx, namespace, service, port)
	if err != nil {
		return err
	}
	defer stop()
	dir, err := os.MkdirTemp("", "kubectl-setpoint-")
	if err != nil {
		return fmt.Errorf("temporary directory for the CA: %w", err)
	}
	defer os.RemoveAll(dir)
	caFile := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(caFile, ca, 0o600); err != nil {
		return fmt.Errorf("write CA: %w", err)
	}
	return o.runPsql(ctx, psqlEnv(conn, local, caFile), extra)
}

// psqlEnv is libpq's environment for conn. The password is here and only
// here: never on psql's command line (visible in ps) or on screen.
func psqlEnv(conn *inspect.Connection, localPort int, caFile string) []string {
	return []string{
		"PGHOST=" + conn.Host,
		"PGHOSTADDR=127.0.0.1",
		"PGPORT=" + strconv.Itoa(localPort),
		"PGDATABASE=" + conn.Database,
		"PGUSER=" + conn.User,
		"PGPASSWORD=" + conn.Password,
		"PGSSLMODE=" + conn.SSLMode,
		"PGSSLROOTCERT=" + caFile,
	}
}

// runPsql runs psql attached to the plugin's streams. Ctrl-C belongs to
// psql (it cancels the running query): the plugin ignores it meanwhile.
func (o *Options) runPsql(ctx context.Context, env, args []string) error {
	bin := o.Psql
	if bin == "" {
		bin = "psql"
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Streams.In, o.Streams.Out, o.Streams.ErrOut
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt)
	defer signal.Stop(signals)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("psql: %w", err)
	}
	return nil
}
