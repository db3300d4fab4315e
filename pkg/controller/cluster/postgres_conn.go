package cluster

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// superuserConn is the pass's one connection to database postgres as the
// superuser, opened on first use, so a pass connects at most once. A
// failure to connect is the pass's answer; the next pass tries again.
func (p *pass) superuserConn(ctx context.Context) (*pgx.Conn, error) {
	if p.connTried {
		return p.conn, p.connErr
	}
	p.connTried = true
	sec := p.contracts.Secret
	if sec == nil || len(p.obs.ca) == 0 {
		p.connErr = fmt.Errorf("superuser secret or CA not available yet")
		return nil, p.connErr
	}
	ctx, cancel := context.WithTimeout(ctx, p.deps.pgTimeout)
	defer cancel()
	p.connTarget = postgres.Target{
		Namespace: p.cluster.Namespace, Cluster: p.cluster.Name, Database: "postgres",
		User: string(sec.Data["username"]), Password: string(sec.Data["password"]), CACert: p.obs.ca,
	}
	// The database controller's checks on this server release theirs for
	// reuse too (postgres.ReuseWindow).
	p.conn, p.connErr = p.deps.connector.Acquire(ctx, p.connTarget)
	return p.conn, p.connErr
}

// closeConn hands the pass's connection back, if it opened one.
func (p *pass) closeConn(context.Context) {
	if p.conn != nil {
		p.deps.connector.Release(p.connTarget, p.conn)
		p.conn = nil
	}
}
