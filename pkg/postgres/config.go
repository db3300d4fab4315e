package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// connConfig is the connection configuration for t at host, taken from t
// alone. pgx accepts only a configuration made by its ParseConfig, which
// also reads the process's PG* environment (PGHOST, PGPASSWORD, PGSSLMODE,
// PGOPTIONS, …) and the files it names (~/.pgpass, certificates): in the
// operator's Pod those are not meant for the clusters it manages. So every
// setting the environment could supply is given in the connection string,
// which wins over the environment, and set again on the parsed result.
// The one thing the string cannot override is PGSERVICE naming a service
// that does not exist: pgx then refuses to parse, a loud error rather than
// a connection steered elsewhere. The caller sets TLSConfig and DialFunc.
func connConfig(host string, t Target) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(connString(host, t))
	if err != nil {
		return nil, fmt.Errorf("postgres config: %w", err)
	}
	cfg.Host, cfg.Port = host, Port
	cfg.Database, cfg.User, cfg.Password = t.Database, t.User, t.Password
	cfg.TLSConfig = nil
	cfg.Fallbacks = nil
	cfg.ConnectTimeout = 0 // the caller's context bounds the attempt
	cfg.RuntimeParams = map[string]string{"application_name": applicationName}
	if t.StatementTimeout > 0 {
		cfg.RuntimeParams["statement_timeout"] = strconv.FormatInt(t.StatementTimeout.Milliseconds(), 10)
	}
	cfg.KerberosSrvName, cfg.KerberosSpn = "", ""
	cfg.SSLNegotiation, cfg.SSLCertMode = "postgres", "disable"
	cfg.ValidateConnect, cfg.AfterConnect = nil, nil
	cfg.MinProtocolVersion, cfg.MaxProtocolVersion = "3.0", "3.0"
	cfg.ChannelBinding, cfg.RequireAuth = "prefer", ""
	cfg.OAuthTokenProvider = nil
	// The service's host name is used as is: resolving it is DialFunc's job
	// (through the host map outside the cluster).
	cfg.LookupFunc = func(_ context.Context, h string) ([]string, error) { return []string{h}, nil }
	return cfg, nil
}

// applicationName is the application_name of setpoint's sessions.
const applicationName = "setpoint"

// connString names every setting pgx would otherwise take from the
// environment or a default file, so that neither applies. It carries no
// password: that is set on the parsed configuration, so it cannot appear in
// a parse error.
func connString(host string, t Target) string {
	settings := [][2]string{
		{"host", host}, {"port", strconv.Itoa(Port)}, {"dbname", t.Database}, {"user", t.User},
		{"passfile", ""}, {"application_name", applicationName}, {"connect_timeout", "0"},
		{"sslmode", "disable"}, {"sslrootcert", ""}, {"sslcert", ""}, {"sslkey", ""},
		{"sslcertmode", "disable"}, {"sslpassword", ""}, {"sslsni", "1"}, {"sslnegotiation", "postgres"},
		{"target_session_attrs", "any"}, {"options", ""},
		{"min_protocol_version", "3.0"}, {"max_protocol_version", "3.0"},
		{"channel_binding", "prefer"}, {"require_auth", ""},
	}
	parts := make([]string, 0, len(settings))
	for _, kv := range settings {
		parts = append(parts, kv[0]+"="+quote(kv[1]))
	}
	return strings.Join(parts, " ")
}

// quote is a keyword/value connection-string value in single quotes.
func quote(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}
