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
		Short: "Run the local psql on a PostgresDatabase through a port-forward; the password (or the client certificate's files) goes in the environment only",
		Args:  cobra.MinimumNArgs(1),
	}
	f.add(cmd)
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		conn, err := c.reader().Connection(ctx, args[0], f.options(true))
		if err != nil {
			return err
		}
		files := map[string][]byte{}
		if files[caFile], err = c.reader().CACertificate(ctx, conn); err != nil {
			return err
		}
		if conn.CertSecret != "" {
			if files[certFile], files[keyFile], err = c.reader().ClientCertificate(ctx, conn); err != nil {
				return err
			}
		}
		return o.psql(ctx, c, conn, files, args[1:])
	})
	return cmd
}

// psql forwards a local port to the connection's Service and runs psql on
// it. libpq verifies the server as an application would: PGHOST is the
// Service's name (checked against the certificate, sslmode from the
// ConfigMap), PGHOSTADDR the local end of the forward.
func (o *Options) psql(ctx context.Context, c *clients, conn *inspect.Connection, files map[string][]byte, extra []string) error {
	local, stop, err := o.forward(ctx, c, conn)
	if err != nil {
		return err
	}
	defer stop()
	dir, err := os.MkdirTemp("", "kubectl-setpoint-")
	if err != nil {
		return fmt.Errorf("temporary directory for the certificates: %w", err)
	}
	defer os.RemoveAll(dir)
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return o.runPsql(ctx, psqlEnv(conn, local, dir), extra)
}

// The files psql reads, in its temporary directory: the server's CA and,
// for a role that logs in by certificate, its certificate and key (libpq
// refuses a key others can read: 0600).
const (
	caFile   = "ca.crt"
	certFile = "tls.crt"
	keyFile  = "tls.key"
)

// psqlEnv is libpq's environment for conn, with its files in dir. The
// password is here and only here: never on psql's command line (visible in
// ps) or on screen. A role that logs in by certificate has none.
func psqlEnv(conn *inspect.Connection, localPort int, dir string) []string {
	env := []string{
		"PGHOST=" + conn.Host,
		"PGHOSTADDR=127.0.0.1",
		"PGPORT=" + strconv.Itoa(localPort),
		"PGDATABASE=" + conn.Database,
		"PGUSER=" + conn.User,
		"PGSSLMODE=" + conn.SSLMode,
		"PGSSLROOTCERT=" + filepath.Join(dir, caFile),
	}
	if conn.CertSecret != "" {
		return append(env, "PGSSLCERT="+filepath.Join(dir, certFile), "PGSSLKEY="+filepath.Join(dir, keyFile))
	}
	return append(env, "PGPASSWORD="+conn.Password)
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
