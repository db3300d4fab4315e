package cnpgsim

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// sqlTimeout bounds every session the Simulator opens: all SQL runs under
// a context derived from it.
const sqlTimeout = 15 * time.Second

// withConn runs fn in a superuser session on database, closing it after.
func (s *server) withConn(ctx context.Context, database string, fn func(context.Context, *pgx.Conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, sqlTimeout)
	defer cancel()
	if database == "postgres" && s.kept.max > 0 {
		return s.withKeptConn(ctx, fn)
	}
	conn, err := s.connect(ctx, database)
	if err != nil {
		return err
	}
	defer closeConn(conn)
	return fn(ctx, conn)
}

// withKeptConn runs fn on an idle kept session, or a new one kept after.
func (s *server) withKeptConn(ctx context.Context, fn func(context.Context, *pgx.Conn) error) error {
	conn, epoch := s.kept.take()
	if conn == nil {
		var err error
		if conn, err = s.connect(ctx, "postgres"); err != nil {
			return err
		}
	}
	err := fn(ctx, conn)
	s.kept.give(conn, epoch, err == nil)
	return err
}

// quoteLiteral quotes a string constant the way Postgres's quote_literal
// does, which is correct whatever standard_conforming_strings says. Utility
// statements (ALTER ROLE, COMMENT, ALTER SYSTEM) take no bind parameters.
func quoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// pgMessage is the server's own message for an error, which is what CNPG
// reports in status; other errors keep their text.
func pgMessage(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Message
	}
	return err.Error()
}
