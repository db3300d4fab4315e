package database

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
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
	// analyze runs ANALYZE on target's database, and returns its
	// extensions whose installed version is older than the server's
	// default ("name 1.0 → 1.1").
	analyze(ctx context.Context, t postgres.Target) (outdated []string, err error)
	// databaseSetting is the value database name sets for parameter
	// param for every role (ALTER DATABASE … SET), set false when none.
	databaseSetting(ctx context.Context, t postgres.Target, name, param string) (value string, set bool, err error)
	// grants reads, in target's database, the privileges w's roles
	// (w.Managed) hold and the objects they are held on
	// (grantplan.CatalogQuery).
	grants(ctx context.Context, t postgres.Target, w grantplan.Want) (grantplan.Catalog, error)
}

// analyzeTimeout bounds ANALYZE after a major upgrade: it reads a sample
// of every table, so it takes far longer than the other statements, but
// runs once per database and major.
const analyzeTimeout = 10 * time.Minute

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

func (r pgxRunner) grants(ctx context.Context, t postgres.Target, w grantplan.Want) (grantplan.Catalog, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	conn, err := r.connector.Connect(ctx, t)
	if err != nil {
		return grantplan.Catalog{}, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return grantplan.Read(ctx, conn, w.Managed)
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

func (r pgxRunner) databaseSetting(ctx context.Context, t postgres.Target, name, param string) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	conn, err := r.connector.Acquire(ctx, t)
	if err != nil {
		return "", false, err
	}
	defer r.connector.Release(t, conn)
	var value string
	err = conn.QueryRow(ctx, `SELECT substr(c, length($2) + 2) FROM pg_db_role_setting s
		JOIN pg_database d ON d.oid = s.setdatabase, unnest(s.setconfig) AS c
		WHERE d.datname = $1 AND s.setrole = 0 AND c LIKE $2 || '=%'`, name, param).Scan(&value)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s of database %s: %w", param, name, err)
	}
	return value, true, nil
}

// grantPlan is the SQL that lets <db>_rw use the database and everything
// <db>_admin creates in schema public, now and later, and, with readOnly,
// lets <db>_ro read it; and that closes the database to every other role
// (isolationPlan). Every identifier is quoted by pgx; the statements are
// idempotent and run in one transaction, so the database's own roles hold
// CONNECT before PUBLIC loses it: no login of theirs fails in between.
//
// The plan also records, as the database's comment, that setpoint created
// it and for which PostgresDatabase: Postgres's own record that a later
// check (checkNewDatabase) trusts.
func grantPlan(n names, marker string, readOnly bool) []string {
	db := pgx.Identifier{n.DB}.Sanitize()
	admin := pgx.Identifier{n.AdminRole}.Sanitize()
	rw := pgx.Identifier{n.RWRole}.Sanitize()
	stmts := []string{
		// TEMPORARY too: PUBLIC gave it before, and an application's
		// temporary tables must keep working once PUBLIC loses it.
		"GRANT CONNECT, TEMPORARY ON DATABASE " + db + " TO " + rw,
		"GRANT USAGE ON SCHEMA public TO " + rw,
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + rw,
		"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO " + rw,
		"ALTER DEFAULT PRIVILEGES FOR ROLE " + admin + " IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO " + rw,
		"ALTER DEFAULT PRIVILEGES FOR ROLE " + admin + " IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO " + rw,
	}
	if readOnly {
		ro := pgx.Identifier{n.RORole}.Sanitize()
		stmts = append(stmts,
			"GRANT CONNECT, TEMPORARY ON DATABASE "+db+" TO "+ro,
			"GRANT USAGE ON SCHEMA public TO "+ro,
			"GRANT SELECT ON ALL TABLES IN SCHEMA public TO "+ro,
			"GRANT SELECT ON ALL SEQUENCES IN SCHEMA public TO "+ro,
			"ALTER DEFAULT PRIVILEGES FOR ROLE "+admin+" IN SCHEMA public GRANT SELECT ON TABLES TO "+ro,
			"ALTER DEFAULT PRIVILEGES FOR ROLE "+admin+" IN SCHEMA public GRANT SELECT ON SEQUENCES TO "+ro,
		)
	}
	stmts = append(stmts, isolationPlan(n)...)
	return append(stmts, "COMMENT ON DATABASE "+db+" IS "+quoteLiteral(marker))
}

// isolationPlan takes from PUBLIC what Postgres gives every role on a new
// database: CONNECT and TEMPORARY on the database (pg_hba lets every role
// try every database, so without this a role of another PostgresDatabase
// on the cluster logs in, lists this one's objects and creates temporary
// ones) and CREATE on schema public (PostgreSQL 14 and earlier give it, and
// a function planted there runs with the privileges of whoever calls it
// through search_path). The owner <db>_admin keeps its own rights: an
// owner's privileges are not PUBLIC's. Setpoint's monitor role needs none:
// it only connects to database postgres.
//
// The check at the end makes the plan fail instead of reporting isolation
// that did not happen: REVOKE by a role that is not the schema's owner
// only warns. On PostgreSQL 15 and later schema public belongs to
// pg_database_owner, which <db>_admin is; on 14 the bootstrap superuser
// owns it, setpoint never logs in as that, and the check says so.
func isolationPlan(n names) []string {
	db := pgx.Identifier{n.DB}.Sanitize()
	return []string{
		"REVOKE CONNECT, TEMPORARY ON DATABASE " + db + " FROM PUBLIC",
		"REVOKE CREATE ON SCHEMA public FROM PUBLIC",
		`DO $$BEGIN IF has_schema_privilege('public', 'public', 'CREATE') THEN ` +
			`RAISE EXCEPTION 'every role may still CREATE in schema public: its owner % is not this database''s owner; PostgreSQL 15 and later give schema public to the database''s owner', ` +
			`(SELECT nspowner::regrole FROM pg_namespace WHERE nspname = 'public') USING ERRCODE = 'insufficient_privilege'; END IF; END$$`,
	}
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

func (r pgxRunner) analyze(ctx context.Context, t postgres.Target) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, analyzeTimeout)
	defer cancel()
	t.StatementTimeout = analyzeTimeout
	conn, err := r.connector.Connect(ctx, t)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// As the owner: ANALYZE skips, with a warning, the tables the owner
	// does not own, which are not setpoint's to analyze.
	if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
		return nil, fmt.Errorf("ANALYZE: %w", err)
	}
	rows, err := conn.Query(ctx, `SELECT e.extname::text, e.extversion, a.default_version
FROM pg_extension e JOIN pg_available_extensions a ON a.name = e.extname
WHERE a.default_version IS NOT NULL AND a.default_version <> e.extversion ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("read extension versions: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, have, def string
		if err := rows.Scan(&name, &have, &def); err != nil {
			return nil, fmt.Errorf("read extension versions: %w", err)
		}
		out = append(out, fmt.Sprintf("%s %s \u2192 %s", name, have, def))
	}
	return out, rows.Err()
}
