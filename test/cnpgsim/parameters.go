package cnpgsim

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/klog/v2"
)

// paramsFile holds spec.postgresql.parameters, included after the base
// settings, the way CNPG writes parameters into a configuration file.
const paramsFile = "cnpgsim-params.conf"

// fixedParameters are the ones CNPG's webhook refuses because the operator
// owns them, or writes itself (archive_mode, ssl_min_protocol_version, …):
// the stand-in plays no such operator and skips them.
var fixedParameters = map[string]bool{
	"listen_addresses": true, "port": true, "unix_socket_directories": true,
	"unix_socket_group": true, "unix_socket_permissions": true,
	"data_directory": true, "config_file": true, "hba_file": true, "ident_file": true,
	"include": true, "include_dir": true, "include_if_exists": true,
	"ssl": true, "ssl_ca_file": true, "ssl_cert_file": true, "ssl_crl_file": true,
	"ssl_key_file": true, "ssl_min_protocol_version": true, "ssl_max_protocol_version": true,
	"ssl_passphrase_command": true, "log_destination": true, "log_directory": true,
	"log_filename": true, "logging_collector": true, "cluster_name": true,
	"restore_command": true, "archive_command": true, "archive_mode": true,
	"primary_conninfo": true, "primary_slot_name": true, "hot_standby": true,
	"wal_level": true, "promote_trigger_file": true, "recovery_target": true,
}

// applyParameters rewrites the parameters file when the spec changed,
// reloads, and restarts when a changed parameter can only change at start
// (pg_settings.context = 'postmaster'), as CNPG's instance manager does.
func (r *clusterRun) applyParameters(ctx context.Context) error {
	if r.inst.backend.shared {
		return nil
	}
	srv := r.inst.backend.srv
	desired := map[string]string{}
	if pg := r.cluster.Spec.PostgresConfiguration; pg != nil {
		for k, v := range pg.Parameters {
			if name := strings.ToLower(k); !fixedParameters[name] {
				desired[name] = v
			}
		}
	}
	current := parseParams(srv.readFile(paramsFile))
	if maps.Equal(current, desired) {
		return nil
	}
	if r.cluster.Status.Phase == PhaseHealthy {
		if err := r.writeStatus(ctx, PhaseApplyingConfiguration, true, ""); err != nil {
			return err
		}
	}
	if _, err := srv.writeIfChanged(paramsFile, []byte(renderParams(desired))); err != nil {
		return err
	}
	// A reload first, even for restart-only parameters: it reports values
	// the server refuses before a restart could trip over them.
	if err := srv.reloadAndWait(ctx); err != nil {
		if _, rerr := srv.writeIfChanged(paramsFile, []byte(renderParams(current))); rerr == nil {
			_ = srv.reload(ctx)
		}
		if r.cluster.Status.Phase == PhaseApplyingConfiguration {
			// Say why it is stuck, where a human looks first.
			_ = r.writeStatus(ctx, PhaseApplyingConfiguration, true, err.Error())
		}
		return err
	}
	restart, err := srv.needsRestart(ctx, changedNames(current, desired))
	if err != nil || !restart {
		return err
	}
	klog.FromContext(ctx).Info("Restarting Postgres for new parameters")
	if err := srv.restart(ctx); err != nil {
		// An invalid restart-only value shows only now: go back to what ran.
		if _, rerr := srv.writeIfChanged(paramsFile, []byte(renderParams(current))); rerr == nil {
			_ = srv.start(ctx)
		}
		return fmt.Errorf("restart with new parameters: %w", err)
	}
	return nil
}

func renderParams(params map[string]string) string {
	var b strings.Builder
	b.WriteString("# spec.postgresql.parameters, written by cnpgsim\n")
	for _, name := range slices.Sorted(maps.Keys(params)) {
		// Configuration-file strings take '' and backslash escapes.
		v := strings.ReplaceAll(strings.ReplaceAll(params[name], `\`, `\\`), "'", "''")
		fmt.Fprintf(&b, "%s = '%s'\n", name, v)
	}
	return b.String()
}

// parseParams reads back what renderParams wrote.
func parseParams(content string) map[string]string {
	params := map[string]string{}
	for line := range strings.SplitSeq(content, "\n") {
		name, quoted, ok := strings.Cut(line, " = '")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		v := strings.TrimSuffix(quoted, "'")
		params[name] = strings.ReplaceAll(strings.ReplaceAll(v, "''", "'"), `\\`, `\`)
	}
	return params
}

func changedNames(a, b map[string]string) []string {
	var names []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			names = append(names, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			names = append(names, k)
		}
	}
	return names
}

func (s *server) readFile(name string) string {
	data, err := os.ReadFile(filepath.Join(s.dataDir(), name))
	if err != nil {
		return ""
	}
	return string(data)
}

func (s *server) needsRestart(ctx context.Context, names []string) (bool, error) {
	var n int
	err := s.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
		return conn.QueryRow(ctx,
			"SELECT count(*) FROM pg_settings WHERE name = ANY($1) AND context = 'postmaster'", names).Scan(&n)
	})
	if err != nil {
		return false, fmt.Errorf("check restart need: %w", err)
	}
	return n > 0, nil
}

// reloadAndWait reloads and waits until new sessions see the new files, so
// that a status written afterwards does not run ahead of the server; it
// reports settings the server refused.
func (s *server) reloadAndWait(ctx context.Context) error {
	var before time.Time
	err := s.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
		if err := conn.QueryRow(ctx, "SELECT pg_conf_load_time()").Scan(&before); err != nil {
			return fmt.Errorf("read configuration load time: %w", err)
		}
		if _, err := conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
			return fmt.Errorf("reload configuration: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var loaded time.Time
		var errs []string
		err := s.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
			if err := conn.QueryRow(ctx, "SELECT pg_conf_load_time()").Scan(&loaded); err != nil {
				return fmt.Errorf("read configuration load time: %w", err)
			}
			// "could not be applied" covers both invalid values and
			// restart-only parameters; only the context tells them apart.
			rows, err := conn.Query(ctx, `SELECT format('%s = %L: %s', f.name, f.setting, f.error)
				FROM pg_file_settings f LEFT JOIN pg_settings s USING (name)
				WHERE f.error IS NOT NULL
				  AND NOT (f.error = 'setting could not be applied' AND s.context = 'postmaster')`)
			if err != nil {
				return fmt.Errorf("read configuration errors: %w", err)
			}
			errs, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
		if err != nil {
			return err
		}
		if len(errs) > 0 {
			return fmt.Errorf("postgres refused the configuration: %s", strings.Join(errs, "; "))
		}
		if loaded.After(before) || time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
