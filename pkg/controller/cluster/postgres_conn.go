package cluster

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// login is whom the pass's SQL logs in as.
type login struct {
	user, password string
	// superuser: the postgres superuser, which alone may read
	// pg_hba_file_rules.
	superuser bool
}

// errNoLogin: neither identity setpoint's checks may use is there.
var errNoLogin = errors.New("superuser access is off and role " + naming.MonitorRole + " is not applied yet")

// loginOf picks the identity of the pass's SQL. While superuser access is
// on, the superuser: the pg_hba.conf check needs it, and a pass that reads
// the facts makes that check, so a second connection as the monitor would
// add a login, not remove one. While it is off, the monitor role, once the
// snapshot shows CNPG has applied it with its Secret's password. (The
// collector, which never needs the superuser, prefers the monitor.)
func loginOf(p *pass) (login, error) {
	if s := p.contracts.Secret; s != nil {
		return login{user: string(s.Data["username"]), password: string(s.Data["password"]), superuser: true}, nil
	}
	if s := usableMonitor(p); s != nil {
		return login{user: naming.MonitorRole, password: string(s.Data["password"])}, nil
	}
	return login{}, errNoLogin
}

// sqlConn is the pass's one connection to database postgres (pass.sql),
// as the superuser when superuser; closed when the pass ends.
type sqlConn struct {
	conn      *pgx.Conn
	target    postgres.Target
	superuser bool
	err       error
	tried     bool
}

// postgresConn is the pass's one connection to database postgres, opened
// on first use, so a pass connects at most once; superuser says whether
// it is the superuser's. A failure to connect is the pass's answer; the
// next pass tries again.
func (p *pass) postgresConn(ctx context.Context) (conn *pgx.Conn, superuser bool, err error) {
	c := &p.sql
	if c.tried {
		return c.conn, c.superuser, c.err
	}
	c.tried = true
	l, err := loginOf(p)
	if err != nil {
		c.err = err
		return nil, false, err
	}
	if len(p.obs.ca) == 0 {
		c.err = errors.New("CNPG's CA Secret not available yet")
		return nil, false, c.err
	}
	ctx, cancel := context.WithTimeout(ctx, p.deps.pgTimeout)
	defer cancel()
	c.target = postgres.Target{
		Namespace: p.cluster.Namespace, Cluster: p.cluster.Name, Database: "postgres",
		User: l.user, Password: l.password, CACert: p.obs.ca,
	}
	c.superuser = l.superuser
	// The database controller's checks on this server release theirs for
	// reuse too (postgres.ReuseWindow).
	c.conn, c.err = p.deps.connector.Acquire(ctx, c.target)
	return c.conn, c.superuser, c.err
}

// closeConn hands the pass's connection back, if it opened one.
func (p *pass) closeConn(context.Context) {
	if c := &p.sql; c.conn != nil {
		p.deps.connector.Release(c.target, c.conn)
		c.conn = nil
	}
}
