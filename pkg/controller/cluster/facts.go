package cluster

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"

	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// facts are what Postgres itself says, read over SQL.
type facts struct {
	// err is set when the primary could not be reached or queried; it is a
	// measured fact for status, not a failure of the pass.
	err      error
	version  string
	settings map[string]postgres.Setting
	// hbaErrors are the lines of pg_hba.conf Postgres cannot parse. The
	// running server keeps its previous rules, so nothing fails until the
	// next restart, which then cannot start.
	hbaErrors []postgres.HBAError
}

// readFacts connects as the superuser and reads the server version, the
// effective values of the parameters we manage and the errors in
// pg_hba.conf, within the deps' timeout.
func (d *deps) readFacts(ctx context.Context, p *pass) *facts {
	start := time.Now()
	conn, err := p.superuserConn(ctx)
	if err != nil {
		return &facts{err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, d.pgTimeout)
	defer cancel()
	f := &facts{}
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&f.version); err != nil {
		return &facts{err: fmt.Errorf("read server_version: %w", err)}
	}
	if f.settings, err = postgres.ReadSettings(ctx, conn, p.want.Settings.PostgreSQLConfig); err != nil {
		return &facts{err: err}
	}
	if f.hbaErrors, err = postgres.ReadHBAErrors(ctx, conn); err != nil {
		return &facts{err: err}
	}
	klog.FromContext(ctx).V(4).Info("Read Postgres facts", "version", f.version, "settings", len(f.settings), "took", time.Since(start))
	return f
}
