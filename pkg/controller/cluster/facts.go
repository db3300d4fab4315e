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
	// hbaChecked: hbaErrors were read. pg_hba_file_rules is the
	// superuser's alone, so without superuser access they are not.
	hbaChecked bool
}

// readFacts connects (postgresConn: as the superuser while superuser
// access is on, else as the monitor role) and reads the server version,
// the effective values of the parameters we manage and, as the superuser
// only, the errors in pg_hba.conf, within the deps' timeout.
func (d *deps) readFacts(ctx context.Context, p *pass) *facts {
	start := time.Now()
	conn, superuser, err := p.postgresConn(ctx)
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
	if superuser {
		if f.hbaErrors, err = postgres.ReadHBAErrors(ctx, conn); err != nil {
			return &facts{err: err}
		}
		f.hbaChecked = true
	}
	klog.FromContext(ctx).V(4).Info("Read Postgres facts", "version", f.version, "settings", len(f.settings),
		"hbaChecked", f.hbaChecked, "took", time.Since(start))
	return f
}
