package cnpgsim

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// reservedRoles exist in every CNPG instance and are never managed.
var reservedRoles = []string{"postgres", "streaming_replica"}

// roleRetry is how soon a role that failed for a real reason is tried
// again, as CNPG's instance manager retries on its own schedule.
const roleRetry = 5 * time.Second

func isReservedRole(name string) bool {
	return slices.Contains(reservedRoles, name) || strings.HasPrefix(name, "pg_") || strings.HasPrefix(name, "cnpg_")
}

func hasManagedRoles(c *cnpgv1.Cluster) bool {
	return c.Spec.Managed != nil && len(c.Spec.Managed.Roles) > 0
}

// pgRole is a role as Postgres has it, in the attributes we manage.
type pgRole struct {
	// version is the pg_authid row's xmin: any change to the role's row
	// (password included) gives it a new one.
	version        int64
	login, inherit bool
	connLimit      int64
	comment        *string
	memberOf       []string
}

// applyRoles reconciles spec.managed.roles one role at a time, so that one
// failing role does not hold the others back, and records the outcome for
// status.managedRolesStatus.
func (r *clusterRun) applyRoles(ctx context.Context) (retry time.Duration, err error) {
	if !hasManagedRoles(r.cluster) {
		r.roles = nil
		return 0, nil
	}
	byStatus := map[string][]string{cnpgv1.RoleStatusReserved: slices.Clone(reservedRoles)}
	cannot := map[string][]string{}
	fail := func(role, message string) {
		byStatus[cnpgv1.RoleStatusPendingReconciliation] = append(byStatus[cnpgv1.RoleStatusPendingReconciliation], role)
		cannot[role] = []string{message}
	}
	err = r.inst.backend.srv.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
		existing, err := readRoles(ctx, conn, r.rolesToRead())
		if err != nil {
			return err
		}
		managed := map[string]bool{}
		for _, role := range r.cluster.Spec.Managed.Roles {
			managed[role.Name] = true
			if isReservedRole(role.Name) {
				continue // CNPG's webhook refuses these
			}
			if msg, ok := r.faults.failRoles[role.Name]; ok {
				fail(role.Name, msg)
				continue
			}
			if err := r.reconcileRole(ctx, conn, role, existing[role.Name]); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				fail(role.Name, pgMessage(err))
				retry = roleRetry
				continue
			}
			byStatus[cnpgv1.RoleStatusReconciled] = append(byStatus[cnpgv1.RoleStatusReconciled], role.Name)
		}
		if !r.inst.backend.shared {
			// On a shared server every other Cluster's roles would show up.
			for name := range existing {
				if !managed[name] && !isReservedRole(name) {
					byStatus[cnpgv1.RoleStatusNotManaged] = append(byStatus[cnpgv1.RoleStatusNotManaged], name)
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("managed roles: %w", err)
	}
	for _, names := range byStatus {
		slices.Sort(names)
	}
	r.roles = &cnpgv1.ManagedRoles{ByStatus: byStatus}
	if len(cannot) > 0 {
		r.roles.CannotReconcile = cannot
	}
	return retry, nil
}

// rolesToRead are the roles a sync needs to see: all of them on a server
// of the Cluster's own (the ones not in the spec are reported as not
// managed), only the spec's on a shared server. There every other
// Cluster's roles live too, and reading thousands of them per sync would
// make each sync cost what the whole shared server holds.
func (r *clusterRun) rolesToRead() []string {
	if !r.inst.backend.shared {
		return nil
	}
	names := make([]string, 0, len(r.cluster.Spec.Managed.Roles))
	for _, role := range r.cluster.Spec.Managed.Roles {
		names = append(names, role.Name)
	}
	return names
}

// readRoles reads the roles named in only, or every role when only is nil.
func readRoles(ctx context.Context, conn *pgx.Conn, only []string) (map[string]*pgRole, error) {
	rows, err := conn.Query(ctx, `
SELECT a.rolname::text, a.xmin::text::bigint, a.rolcanlogin, a.rolinherit, a.rolconnlimit::bigint,
       shobj_description(a.oid, 'pg_authid'),
       ARRAY(SELECT g.rolname::text FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
             WHERE m.member = a.oid ORDER BY 1)
FROM pg_authid a
WHERE $1::text[] IS NULL OR a.rolname = ANY($1)`, only)
	if err != nil {
		return nil, fmt.Errorf("read roles: %w", err)
	}
	defer rows.Close()
	roles := map[string]*pgRole{}
	for rows.Next() {
		var name string
		var role pgRole
		if err := rows.Scan(&name, &role.version, &role.login, &role.inherit, &role.connLimit, &role.comment, &role.memberOf); err != nil {
			return nil, fmt.Errorf("read roles: %w", err)
		}
		roles[name] = &role
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read roles: %w", err)
	}
	return roles, nil
}

// reconcileRole makes one role match its spec; cur is nil when the role
// does not exist. Errors carry the message CNPG would report.
func (r *clusterRun) reconcileRole(ctx context.Context, conn *pgx.Conn, spec cnpgv1.RoleConfiguration, cur *pgRole) error {
	name := ident(spec.Name)
	if spec.Ensure == cnpgv1.EnsureAbsent {
		if cur == nil {
			return nil
		}
		if _, err := conn.Exec(ctx, "DROP ROLE "+name); err != nil {
			return fmt.Errorf("drop role: %w", err)
		}
		return nil
	}
	var password, secretVersion string
	if spec.PasswordSecret != nil {
		var err error
		password, secretVersion, err = r.s.secretPassword(r.cluster.Namespace, spec.PasswordSecret.Name, spec.Name)
		if err != nil {
			return err
		}
	}
	want := pgRole{
		login:     spec.Login != nil && *spec.Login,
		inherit:   spec.Inherit == nil || *spec.Inherit,
		connLimit: -1,
	}
	if spec.ConnectionLimit != nil {
		want.connLimit = *spec.ConnectionLimit
	}
	if cur == nil {
		if _, err := conn.Exec(ctx, "CREATE ROLE "+name+" "+roleOptions(want)); err != nil {
			return fmt.Errorf("create role: %w", err)
		}
		// version 0 is no row version: the password is set below.
		cur = &pgRole{login: want.login, inherit: want.inherit, connLimit: want.connLimit}
	} else if cur.login != want.login || cur.inherit != want.inherit || cur.connLimit != want.connLimit {
		if _, err := conn.Exec(ctx, "ALTER ROLE "+name+" "+roleOptions(want)); err != nil {
			return fmt.Errorf("alter role: %w", err)
		}
		cur.version = 0 // a new row version, not known yet
	}
	if spec.PasswordSecret != nil {
		if err := r.applyPassword(ctx, conn, spec.Name, password, secretVersion, cur.version); err != nil {
			return err
		}
	}
	if err := syncComment(ctx, conn, spec.Name, spec.Comment, cur.comment); err != nil {
		return err
	}
	return syncMembership(ctx, conn, spec.Name, spec.InRoles, cur.memberOf)
}

func roleOptions(r pgRole) string {
	opts := []string{"NOLOGIN", "NOINHERIT"}
	if r.login {
		opts[0] = "LOGIN"
	}
	if r.inherit {
		opts[1] = "INHERIT"
	}
	return strings.Join(append(opts, "CONNECTION LIMIT "+strconv.FormatInt(r.connLimit, 10)), " ")
}

func syncComment(ctx context.Context, conn *pgx.Conn, role, want string, cur *string) error {
	if (cur == nil && want == "") || (cur != nil && *cur == want) {
		return nil
	}
	value := "NULL"
	if want != "" {
		value = quoteLiteral(want)
	}
	if _, err := conn.Exec(ctx, "COMMENT ON ROLE "+ident(role)+" IS "+value); err != nil {
		return fmt.Errorf("comment on role: %w", err)
	}
	return nil
}

// syncMembership grants the missing inRoles and revokes memberships not
// listed, as CNPG does: membership is part of the managed definition.
func syncMembership(ctx context.Context, conn *pgx.Conn, role string, want, cur []string) error {
	grant, revoke := membershipChanges(want, cur)
	for _, parent := range grant {
		if _, err := conn.Exec(ctx, "GRANT "+ident(parent)+" TO "+ident(role)); err != nil {
			return fmt.Errorf("grant role membership: %w", err)
		}
	}
	for _, parent := range revoke {
		if _, err := conn.Exec(ctx, "REVOKE "+ident(parent)+" FROM "+ident(role)); err != nil {
			return fmt.Errorf("revoke role membership: %w", err)
		}
	}
	return nil
}

// membershipChanges are the parent roles of want missing from cur, and
// those of cur no longer in want.
func membershipChanges(want, cur []string) (grant, revoke []string) {
	for _, p := range want {
		if !slices.Contains(cur, p) {
			grant = append(grant, p)
		}
	}
	for _, p := range cur {
		if !slices.Contains(want, p) {
			revoke = append(revoke, p)
		}
	}
	return grant, revoke
}
