package postgres

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// Port is the port of CNPG's services.
const Port = 5432

// Target says which server and database to reach, as whom.
type Target struct {
	Namespace string
	Cluster   string
	Database  string
	User      string
	Password  string
	// CACert is ca.crt of the cluster's <cluster>-ca Secret.
	CACert []byte
	// ClientCert and ClientKey, when set, are the PEM certificate and key
	// presented to the server (a role that logs in by certificate; then
	// Password is empty). Kept in memory only, like the password.
	ClientCert, ClientKey []byte
	// StatementTimeout, when set, is the session's statement_timeout, sent
	// in the startup packet: the server itself stops a statement that runs
	// longer, even if the client's cancel request never arrives.
	StatementTimeout time.Duration
}

// Connector opens connections to cluster primaries.
type Connector struct {
	hosts   *HostMap
	metrics *Metrics
	// idle are released connections waiting for the next Acquire.
	idleOnce sync.Once
	idle     *idleSet[*pgx.Conn]
}

// NewConnector returns a Connector; hosts may be nil in a real cluster.
func NewConnector(hosts *HostMap) *Connector { return &Connector{hosts: hosts} }

// WithMetrics makes the Connector count connections and statements.
func (c *Connector) WithMetrics(m *Metrics) *Connector {
	c.metrics = m
	return c
}

// ErrNoCA means the cluster's CA is not known yet.
var ErrNoCA = errors.New("cluster CA certificate is missing")

// Connect opens a connection to the primary of t.Cluster. ctx bounds the
// connection attempt; callers give each statement its own timeout too.
func (c *Connector) Connect(ctx context.Context, t Target) (*pgx.Conn, error) {
	if len(t.CACert) == 0 {
		return nil, ErrNoCA
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(t.CACert) {
		return nil, fmt.Errorf("cluster CA certificate of %s/%s does not parse", t.Namespace, t.Cluster)
	}
	host := naming.Host(t.Namespace, naming.RWService(t.Cluster))
	cfg, err := connConfig(host, t)
	if err != nil {
		return nil, err
	}
	cfg.TLSConfig = &tls.Config{ServerName: host, RootCAs: pool, MinVersion: tls.VersionTLS12}
	if len(t.ClientCert) > 0 {
		pair, err := tls.X509KeyPair(t.ClientCert, t.ClientKey)
		if err != nil {
			// crypto/tls names what is wrong (no PEM data, a mismatched
			// key), never the key's bytes.
			return nil, fmt.Errorf("client certificate of %s does not parse: %w", t.User, err)
		}
		cfg.TLSConfig.Certificates = []tls.Certificate{pair}
		// connConfig's "disable" makes pgx withhold any certificate;
		// "require" also fails the login should the server not ask for
		// it (then pg_hba is not what setpoint wrote).
		cfg.SSLCertMode = "require"
	}
	dialer := &net.Dialer{}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		to, err := c.hosts.Resolve(addr)
		if err != nil {
			return nil, err
		}
		return dialer.DialContext(ctx, network, to)
	}
	if c.metrics != nil {
		cfg.Tracer = tracer{c.metrics}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	c.metrics.connected(err)
	if err != nil {
		// pgx errors name host, user and database, never the password.
		return nil, fmt.Errorf("connect to %s as %s: %w", net.JoinHostPort(host, strconv.Itoa(Port)), t.User, err)
	}
	return conn, nil
}
