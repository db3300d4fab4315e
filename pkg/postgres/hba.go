package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// HBAError is a pg_hba.conf line Postgres cannot parse.
type HBAError struct {
	Line  int
	Error string
}

// ReadHBAErrors returns the lines of the pg_hba.conf on disk that Postgres
// rejects (pg_hba_file_rules parses the file as a reload would; it needs a
// superuser).
func ReadHBAErrors(ctx context.Context, conn *pgx.Conn) ([]HBAError, error) {
	rows, err := conn.Query(ctx,
		"SELECT coalesce(line_number, 0), error FROM pg_hba_file_rules WHERE error IS NOT NULL ORDER BY line_number")
	if err != nil {
		return nil, fmt.Errorf("read pg_hba_file_rules: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (HBAError, error) {
		var e HBAError
		err := r.Scan(&e.Line, &e.Error)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("read pg_hba_file_rules: %w", err)
	}
	return out, nil
}
