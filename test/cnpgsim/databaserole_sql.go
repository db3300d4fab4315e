package cnpgsim

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// The SQL of a DatabaseRole, as CNPG's instance manager runs it
// (internal/management/controller/roles/postgres.go, called from
// internal/management/controller/databaserole_controller.go
// reconcileRole): a new role is one CREATE ROLE with every attribute, its
// memberships (IN ROLE) and its password, then COMMENT ON ROLE when there
// is a comment; an existing one — whoever created it — gets its
// memberships brought to inRoles (GRANT and REVOKE in one transaction),
// one ALTER ROLE with every attribute and the password, and COMMENT ON
// ROLE when the comment differs. Every statement names each attribute, so
// an ALTER also resets what someone changed by hand. Errors carry CNPG's
// wording around Postgres's error (pgx's `ERROR: … (SQLSTATE …)`, the
// driver CNPG uses too).

// dbRoleState is what the apply needs to know of the role in Postgres.
type dbRoleState struct {
	validUntilSet bool
	comment       string
	memberOf      []string
}

// applyDatabaseRole creates the role or alters it to spec.
func applyDatabaseRole(ctx context.Context, srv *server, spec cnpgv1.DatabaseRoleSpec, password rolePasswordClause) error {
	return srv.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
		cur, err := readDBRole(ctx, conn, spec.Name)
		if err != nil {
			return err
		}
		if cur == nil {
			return createDBRole(ctx, conn, spec, password)
		}
		return alterDBRole(ctx, conn, spec, password, cur)
	})
}

func readDBRole(ctx context.Context, conn *pgx.Conn, name string) (*dbRoleState, error) {
	var st dbRoleState
	var comment *string
	err := conn.QueryRow(ctx, `
SELECT a.rolvaliduntil IS NOT NULL, shobj_description(a.oid, 'pg_authid'),
       ARRAY(SELECT g.rolname::text FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
             WHERE m.member = a.oid ORDER BY 1)
FROM pg_authid a WHERE a.rolname = $1`, name).Scan(&st.validUntilSet, &comment, &st.memberOf)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("while listing roles in postgres: %w", err)
	}
	if comment != nil {
		st.comment = *comment
	}
	return &st, nil
}

func createDBRole(ctx context.Context, conn *pgx.Conn, spec cnpgv1.DatabaseRoleSpec, password rolePasswordClause) error {
	wrap := func(err error) error {
		return fmt.Errorf("while creating role %s with role reconciler: %w", spec.Name, err)
	}
	stmt := "CREATE ROLE " + ident(spec.Name) + roleAttributes(spec)
	if len(spec.InRoles) > 0 {
		parents := make([]string, len(spec.InRoles))
		for i, p := range spec.InRoles {
			parents[i] = ident(p)
		}
		stmt += " IN ROLE " + strings.Join(parents, ",")
	}
	clause, err := passwordClause(password, spec.ValidUntil, false)
	if err != nil {
		return wrap(err)
	}
	// The statement holds a verifier: it is never logged.
	if _, err := conn.Exec(ctx, stmt+clause); err != nil {
		return wrap(err)
	}
	if spec.Comment == "" {
		return nil
	}
	if _, err := conn.Exec(ctx, "COMMENT ON ROLE "+ident(spec.Name)+" IS "+quoteLiteral(spec.Comment)); err != nil {
		return wrap(err)
	}
	return nil
}

func alterDBRole(ctx context.Context, conn *pgx.Conn, spec cnpgv1.DatabaseRoleSpec, password rolePasswordClause, cur *dbRoleState) error {
	if err := syncDBRoleMembership(ctx, conn, spec.Name, spec.InRoles, cur.memberOf); err != nil {
		return fmt.Errorf("while updating membership: %w", err)
	}
	wrap := func(err error) error {
		return fmt.Errorf("while updating role %s with role reconciler: %w", spec.Name, err)
	}
	// Postgres cannot set VALID UNTIL back to NULL: CNPG writes infinity.
	clause, err := passwordClause(password, spec.ValidUntil, cur.validUntilSet)
	if err != nil {
		return wrap(err)
	}
	if _, err := conn.Exec(ctx, "ALTER ROLE "+ident(spec.Name)+roleAttributes(spec)+clause); err != nil {
		return wrap(err)
	}
	if cur.comment == spec.Comment {
		return nil
	}
	if _, err := conn.Exec(ctx, "COMMENT ON ROLE "+ident(spec.Name)+" IS "+quoteLiteral(spec.Comment)); err != nil {
		return fmt.Errorf("while updating comment: while updating comment for role %s with role reconciler: %w", spec.Name, err)
	}
	return nil
}

// roleAttributes names every attribute, each either way, as CNPG does.
func roleAttributes(spec cnpgv1.DatabaseRoleSpec) string {
	flag := func(on bool, name string) string {
		if on {
			return " " + name
		}
		return " NO" + name
	}
	limit := int64(-1)
	if spec.ConnectionLimit != nil {
		limit = *spec.ConnectionLimit
	}
	return flag(spec.BypassRLS, "BYPASSRLS") + flag(spec.CreateDB, "CREATEDB") + flag(spec.CreateRole, "CREATEROLE") +
		flag(spec.Inherit == nil || *spec.Inherit, "INHERIT") + flag(spec.Login, "LOGIN") +
		flag(spec.Replication, "REPLICATION") + flag(spec.Superuser, "SUPERUSER") +
		" CONNECTION LIMIT " + strconv.FormatInt(limit, 10)
}

// passwordClause is the PASSWORD and VALID UNTIL part. validUntilSet says
// the role has an expiry now, which an unset validUntil turns to infinity.
func passwordClause(password rolePasswordClause, validUntil *metav1.Time, validUntilSet bool) (string, error) {
	var clause string
	switch {
	case password.keep:
	case password.value == nil:
		clause = " PASSWORD NULL"
	default:
		literal, err := passwordLiteral(*password.value)
		if err != nil {
			return "", err
		}
		clause = " PASSWORD " + quoteLiteral(literal)
	}
	switch {
	case validUntil != nil:
		clause += " VALID UNTIL " + quoteLiteral(validUntil.UTC().Format(time.RFC3339Nano))
	case validUntilSet:
		clause += " VALID UNTIL 'infinity'"
	}
	return clause, nil
}

// syncDBRoleMembership grants the missing inRoles and revokes the others,
// all or nothing, as CNPG's UpdateMembership does.
func syncDBRoleMembership(ctx context.Context, conn *pgx.Conn, role string, want, cur []string) error {
	grant, revoke := membershipChanges(want, cur)
	var stmts []string
	for _, p := range grant {
		stmts = append(stmts, "GRANT "+ident(p)+" TO "+ident(role))
	}
	for _, p := range revoke {
		stmts = append(stmts, "REVOKE "+ident(p)+" FROM "+ident(role))
	}
	if len(stmts) == 0 {
		return nil
	}
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, stmt := range stmts {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("while updating memberships for role %s with role reconciler: %w", role, err)
	}
	return nil
}

// dropDatabaseRole is CNPG's Delete: DROP ROLE IF EXISTS, so a retry after
// the role went is no error. A role that owns objects or holds privileges
// is not dropped; Postgres's error says so.
func dropDatabaseRole(ctx context.Context, srv *server, name string) error {
	return srv.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, "DROP ROLE IF EXISTS "+ident(name)); err != nil {
			return fmt.Errorf("while deleting role %s with role reconciler: %w", name, err)
		}
		return nil
	})
}
