package testkit

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Query runs one statement and returns the first column of its first row
// as text, "" when it returns no row. Each tier reaches Postgres its own
// way (a superuser session, a database's admin, a fresh dial per
// statement); the kit needs only this.
type Query func(ctx context.Context, sql string) (string, error)

// Conn is Query over one open session.
func Conn(conn *pgx.Conn) Query {
	return func(ctx context.Context, sql string) (string, error) {
		var v any
		err := conn.QueryRow(ctx, sql).Scan(&v)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return "", nil
		case err != nil:
			return "", fmt.Errorf("%s: %w", sql, err)
		case v == nil:
			return "", nil
		}
		return fmt.Sprint(v), nil
	}
}
