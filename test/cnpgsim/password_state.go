package cnpgsim

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// passwordState is what CNPG's instance manager remembers of a managed
// role's password (its status.managedRolesStatus.passwordStatus): the
// version of the Secret it last set the password from, and the version of
// the role's pg_authid row (its xmin) that setting left behind. While both
// still hold, nobody changed the Secret or the role, so the password is
// not looked at again: no SCRAM derivation per role and sync, which on a
// shared server with thousands of roles was most of a sync's time.
type passwordState struct {
	secretVersion string
	roleVersion   int64
}

// applyPassword makes the role's password the Secret's, unless the state
// remembered for it shows neither has changed since it was last set.
func (r *clusterRun) applyPassword(ctx context.Context, conn *pgx.Conn, role, password, secretVersion string, roleVersion int64) error {
	if st, ok := r.inst.passwords[role]; ok && st.secretVersion == secretVersion && st.roleVersion == roleVersion {
		return nil
	}
	if err := setPassword(ctx, conn, role, &password); err != nil {
		return err
	}
	var version int64
	if err := conn.QueryRow(ctx, "SELECT xmin::text::bigint FROM pg_authid WHERE rolname = $1", role).Scan(&version); err != nil {
		return fmt.Errorf("read version of role %q: %w", role, err)
	}
	if r.inst.passwords == nil {
		r.inst.passwords = map[string]passwordState{}
	}
	r.inst.passwords[role] = passwordState{secretVersion: secretVersion, roleVersion: version}
	return nil
}
