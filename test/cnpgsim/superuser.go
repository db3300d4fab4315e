package cnpgsim

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// applySuperuser gives postgres the password from the superuser Secret
// when superuser access is on, and a NULL password when it is off, as CNPG
// does. In shared-backend mode the superuser is trusted instead (see the
// package documentation).
func (r *clusterRun) applySuperuser(ctx context.Context) error {
	if r.inst.backend.shared {
		return nil
	}
	var want *string
	if superuserAccess(r.cluster) {
		password, _, err := r.s.secretPassword(r.cluster.Namespace, superuserSecretName(r.cluster), "postgres")
		if err != nil {
			return fmt.Errorf("superuser secret: %w", err)
		}
		want = &password
	}
	return r.inst.backend.srv.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
		return setPassword(ctx, conn, "postgres", want)
	})
}

// setPassword makes role's password want (nil: NULL) unless it already is.
func setPassword(ctx context.Context, conn *pgx.Conn, role string, want *string) error {
	var current *string
	if err := conn.QueryRow(ctx, "SELECT rolpassword FROM pg_authid WHERE rolname = $1", role).Scan(&current); err != nil {
		return fmt.Errorf("read password of role %q: %w", role, err)
	}
	switch {
	case want == nil && current == nil:
		return nil
	case want == nil:
		if _, err := conn.Exec(ctx, "ALTER ROLE "+ident(role)+" PASSWORD NULL"); err != nil {
			return fmt.Errorf("clear password of role %q: %w", role, err)
		}
		return nil
	case current != nil && scramMatches(*current, *want):
		return nil
	}
	verifier, err := scramVerifier(*want)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "ALTER ROLE "+ident(role)+" PASSWORD "+quoteLiteral(verifier)); err != nil {
		// The statement holds only a verifier, but keep it out of the error.
		return fmt.Errorf("set password of role %q: %s", role, pgMessage(err))
	}
	return nil
}
