package database

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// defaultPostgresTimeout bounds SQL when the Config sets no timeout.
const defaultPostgresTimeout = 10 * time.Second

// sqlRunner is the narrow seam to Postgres: tests replace it, so the SQL
// plans are testable without a server.
type sqlRunner interface {
	// execTx runs stmts in one transaction on target.
	execTx(ctx context.Context, t postgres.Target, stmts []string) error
	// roleComments returns, for each of names that exists on target's
	// server, its comment ("" when none).
	roleComments(ctx context.Context, t postgres.Target, names []string) (map[string]string, error)
	// databaseComment reports whether database name exists on target's
	// server and its comment ("" when none).
	databaseComment(ctx context.Context, t postgres.Target, name string) (exists bool, comment string, err error)
}

// pgxRunner runs SQL over the Connector, each call bounded by timeout.
type pgxRunner struct {
	connector *postgres.Connector
	timeout   time.Duration
}

func (r pgxRunner) execTx(ctx context.Context, t postgres.Target, stmts []string) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	conn, err := r.connector.Connect(ctx, t)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, s := range stmts {
			// Statements hold only quoted identifiers, never a secret.
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
}

func (r pgxRunner) roleComments(ctx context.Context, t postgres.Target, names []string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	conn, err := r.connector.Acquire(ctx, t)
	if err != nil {
		return nil, err
	}
	defer r.connector.Release(t, conn) // checks of databases created together share it
	rows, err := conn.Query(ctx,
		"SELECT rolname::text, coalesce(shobj_description(oid, 'pg_authid'), '') FROM pg_roles WHERE rolname = ANY($1)", names)
	if err != nil {
		return nil, fmt.Errorf("read roles: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, comment string
		if err := rows.Scan(&name, &comment); err != nil {
			return nil, fmt.Errorf("read roles: %w", err)
		}
		out[name] = comment
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read roles: %w", err)
	}
	return out, nil
}

func (r pgxRunner) databaseComment(ctx context.Context, t postgres.Target, name string) (bool, string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	conn, err := r.connector.Acquire(ctx, t)
	if err != nil {
		return false, "", err
	}
	defer r.connector.Release(t, conn) // checks of databases created together share it
	var comment string
	err = conn.QueryRow(ctx,
		"SELECT coalesce(shobj_description(oid, 'pg_database'), '') FROM pg_database WHERE datname = $1", name).Scan(&comment)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, "", nil
	}
	if err != nil {
		return false, "", fmt.Errorf("read database %s: %w", name, err)
	}
	return true, comment, nil
}

// grantPlan is the SQL that lets <db>_rw use the database and everything
// <db>_admin creates in schema public, now and later, and, with readOnly,
// lets <db>_ro read it. Every identifier is quoted by pgx; the statements
// are idempotent.
//
// The plan also records, as the database's comment, that setpoint created
// it and for which PostgresDatabase: Postgres's own record that a later
// check (checkNewDatabase) trusts.
func grantPlan(n names, marker string, readOnly bool) []string {
	db := pgx.Identifier{n.DB}.Sanitize()
	admin := pgx.Identifier{n.AdminRole}.Sanitize()
	rw := pgx.Identifier{n.RWRole}.Sanitize()
	stmts := []string{
		"GRANT CONNECT ON DATABASE " + db + " TO " + rw,
		"GRANT USAGE ON SCHEMA public TO " + rw,
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + rw,
		"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO " + rw,
		"ALTER DEFAULT PRIVILEGES FOR ROLE " + admin + " IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO " + rw,
		"ALTER DEFAULT PRIVILEGES FOR ROLE " + admin + " IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO " + rw,
	}
	if readOnly {
		ro := pgx.Identifier{n.RORole}.Sanitize()
		stmts = append(stmts,
			"GRANT CONNECT ON DATABASE "+db+" TO "+ro,
			"GRANT USAGE ON SCHEMA public TO "+ro,
			"GRANT SELECT ON ALL TABLES IN SCHEMA public TO "+ro,
			"GRANT SELECT ON ALL SEQUENCES IN SCHEMA public TO "+ro,
			"ALTER DEFAULT PRIVILEGES FOR ROLE "+admin+" IN SCHEMA public GRANT SELECT ON TABLES TO "+ro,
			"ALTER DEFAULT PRIVILEGES FOR ROLE "+admin+" IN SCHEMA public GRANT SELECT ON SEQUENCES TO "+ro,
		)
	}
	return append(stmts, "COMMENT ON DATABASE "+db+" IS "+quoteLiteral(marker))
}

// revokeReadOnlyPlan takes back what grantPlan gave <db>_ro, so that the
// role can be dropped: Postgres refuses to drop a role that still holds
// privileges or appears in default privileges.
func revokeReadOnlyPlan(n names) []string {
	db := pgx.Identifier{n.DB}.Sanitize()
	admin := pgx.Identifier{n.AdminRole}.Sanitize()
	ro := pgx.Identifier{n.RORole}.Sanitize()
	return []string{
		"ALTER DEFAULT PRIVILEGES FOR ROLE " + admin + " IN SCHEMA public REVOKE ALL ON TABLES FROM " + ro,
		"ALTER DEFAULT PRIVILEGES FOR ROLE " + admin + " IN SCHEMA public REVOKE ALL ON SEQUENCES FROM " + ro,
		"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM " + ro,
		"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM " + ro,
		"REVOKE ALL ON SCHEMA public FROM " + ro,
		"REVOKE ALL ON DATABASE " + db + " FROM " + ro,
	}
}

// quoteLiteral quotes s as an SQL string literal (COMMENT takes no bind
// parameters). Standard-conforming strings are on in every supported
// Postgres, so doubling single quotes suffices.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
