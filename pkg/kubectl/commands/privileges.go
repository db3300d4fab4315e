package commands

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
)

func newPrivileges(o *Options) *cobra.Command {
	var output, database string
	var anyway bool
	cmd := &cobra.Command{
		Use:   "privileges DATABASE",
		Short: "Per role of a PostgresDatabase, the privileges its spec declares next to those Postgres shows it holding where they differ, and what setpoint's next pass grants or revokes",
		Long: "Per role of a PostgresDatabase, the privileges its spec declares next to those Postgres shows it holding where they differ, " +
			"and what setpoint's next pass grants or revokes, or leaves alone because another role owns the object. " +
			"It reads the catalog once per database as the database's owner role (<db>_admin) in a read-only transaction, " +
			"through a port-forward to the -rw Service, and plans as the operator does: it changes nothing.",
		Args: cobra.ExactArgs(1),
	}
	outputFlag(cmd, &output)
	cmd.Flags().StringVar(&database, "database", "", "only this Postgres database of the PostgresDatabase")
	cmd.Flags().BoolVar(&anyway, "anyway", false, "also for a PostgresDatabase that is not Ready")
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		ps, err := o.privileges(ctx, c, args[0], database, anyway)
		if err != nil {
			return err
		}
		if done, err := printStructured(o.Streams.Out, output, ps); done {
			return err
		}
		return inspect.WritePrivileges(o.Streams.Out, ps)
	})
	return cmd
}

// privilegesTimeout bounds the connection and the one read per database.
const privilegesTimeout = 30 * time.Second

// privileges compares, per database of PostgresDatabase name (only
// database, when set), what its roles hold with what the spec declares:
// one read of the catalog as the database's owner role, through a
// port-forward to the -rw Service.
func (o *Options) privileges(ctx context.Context, c *clients, name, database string, anyway bool) ([]inspect.Privileges, error) {
	targets, err := c.reader().PrivilegeTargets(ctx, name, database, anyway)
	if err != nil {
		return nil, err
	}
	out := make([]inspect.Privileges, 0, len(targets))
	for _, t := range targets {
		cat, err := o.readPrivileges(ctx, c, t.Conn, grantplan.Declared(t.Spec, t.Names).Managed)
		if err != nil {
			return nil, fmt.Errorf("database %s: %w", t.Names.DB, err)
		}
		out = append(out, inspect.ComparePrivileges(t.Spec, t.Names, cat))
	}
	return out, nil
}

// readPrivileges reads the catalog as conn's role through a forward.
func (o *Options) readPrivileges(ctx context.Context, c *clients, conn *inspect.Connection, managed []string) (grantplan.Catalog, error) {
	ctx, cancel := context.WithTimeout(ctx, privilegesTimeout)
	defer cancel()
	cfg, err := o.pgConfig(ctx, c, conn)
	if err != nil {
		return grantplan.Catalog{}, err
	}
	local, stop, err := o.forward(ctx, c, conn)
	if err != nil {
		return grantplan.Catalog{}, err
	}
	defer stop()
	var d net.Dialer
	cfg.DialFunc = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", strconv.Itoa(local)))
	}
	read := o.ReadCatalog
	if read == nil {
		read = readCatalog
	}
	return read(ctx, cfg, managed)
}

// readCatalog is grantplan.Read in a read-only transaction of a session
// cfg opens: the plugin looks, it never changes a privilege.
func readCatalog(ctx context.Context, cfg *pgx.ConnConfig, managed []string) (grantplan.Catalog, error) {
	pc, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return grantplan.Catalog{}, fmt.Errorf("connect as %s: %w", cfg.User, err)
	}
	defer pc.Close(context.WithoutCancel(ctx))
	var cat grantplan.Catalog
	err = pgx.BeginTxFunc(ctx, pc, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		cat, err = grantplan.Read(ctx, tx, managed)
		return err
	})
	return cat, err
}

// pgConfig is the session conn describes, verified as an application
// verifies the server: the CA from the Secret the ConfigMap names, the
// Service's name checked against the certificate; a role that logs in by
// certificate presents its own.
func (o *Options) pgConfig(ctx context.Context, c *clients, conn *inspect.Connection) (*pgx.ConnConfig, error) {
	ca, err := c.reader().CACertificate(ctx, conn)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("CA Secret %s key %s holds no certificate", conn.CASecret, conn.CASecretKey)
	}
	cfg, err := pgx.ParseConfig("")
	if err != nil {
		return nil, err
	}
	cfg.Host, cfg.Database, cfg.User, cfg.Password = conn.Host, conn.Database, conn.User, conn.Password
	port, err := strconv.ParseUint(conn.Port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("port %q: %w", conn.Port, err)
	}
	cfg.Port = uint16(port)
	cfg.TLSConfig = &tls.Config{ServerName: conn.Host, RootCAs: pool, MinVersion: tls.VersionTLS12}
	cfg.Fallbacks = nil
	cfg.LookupFunc = func(_ context.Context, h string) ([]string, error) { return []string{h}, nil }
	if conn.CertSecret != "" {
		certPEM, keyPEM, err := c.reader().ClientCertificate(ctx, conn)
		if err != nil {
			return nil, err
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("client certificate of Secret %s: %w", conn.CertSecret, err)
		}
		cfg.TLSConfig.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}
