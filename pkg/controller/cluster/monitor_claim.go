package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	"github.com/setpoint-dev/setpoint/pkg/naming"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// refusal is a write the monitor component will not make: Failed with
// reason until someone removes what is in the way.
type refusal struct{ reason, message string }

func (r *refusal) Error() string { return r.message }

// errRoleUnverified: whether Postgres already has the monitor role could
// not be checked this pass; the next one tries again.
var errRoleUnverified = errors.New("cannot check in Postgres whether role " + naming.MonitorRole + " exists")

// claimMonitorRole proves, before the first write of the monitor's
// DatabaseRole, that the role is nobody else's. CNPG would otherwise act
// on it: spec.managed.roles takes precedence over a DatabaseRole, two
// DatabaseRoles of one role fight over it, and a role Postgres already
// has is taken over (new password, membership, dropped on deletion). The
// last is checked only while the superuser can log in: the monitor role is
// the only other identity setpoint has, and it is what is being created.
// Without the superuser a role that existed is taken over by CNPG, as a
// role in neither place would be by any DatabaseRole.
func claimMonitorRole(ctx context.Context, p *pass) error {
	err := claimClusterRole(ctx, p, clusterRoleClaim{
		role: naming.MonitorRole, object: naming.MonitorRoleObject(p.cluster.Name), rivals: p.obs.monitorRivals,
		conflict: pgv1.ReasonMonitorRoleConflict, exists: pgv1.ReasonMonitorRoleExists,
	})
	var r *refusal
	if err == nil || errors.As(err, &r) {
		return err
	}
	return fmt.Errorf("%w: %w", errRoleUnverified, err)
}

// clusterRoleClaim is a role the PostgresCluster keeps as a DatabaseRole of
// its own (the monitor, the certificate group), and the reasons a refusal
// of it carries.
type clusterRoleClaim struct {
	role, object     string
	rivals           []*cnpgv1.DatabaseRole
	conflict, exists string
}

// claimClusterRole proves that c.role is nobody else's (see
// claimMonitorRole): a refusal when it is, the unwrapped error of the
// Postgres check when that could not be made.
func claimClusterRole(ctx context.Context, p *pass, c clusterRoleClaim) error {
	if cl := p.contracts.CNPGCluster; cl.Spec.Managed != nil {
		for _, r := range cl.Spec.Managed.Roles {
			if r.Name == c.role {
				return &refusal{c.conflict, fmt.Sprintf(
					"role %s is listed in CNPG Cluster %q's spec.managed.roles, which CloudNativePG gives precedence over DatabaseRole %q; setpoint leaves it untouched: remove it there",
					c.role, cl.Name, c.object)}
			}
		}
	}
	if len(c.rivals) > 0 {
		return &refusal{c.conflict, fmt.Sprintf(
			"role %s is managed by DatabaseRole %q, which setpoint did not create for this PostgresCluster; setpoint leaves it untouched: delete it",
			c.role, c.rivals[0].Name)}
	}
	if p.contracts.Secret == nil {
		return nil // no superuser to ask: CNPG takes an existing role over
	}
	return checkRoleAbsent(ctx, p, c.role, c.exists)
}

// checkRoleAbsent refuses (reason) a cluster role of setpoint's — the
// monitor, the certificate group — that Postgres already has without
// setpoint's marker for a PostgresCluster. One with the marker is
// setpoint's role of this server: this cluster's (its DatabaseRole went,
// the role stayed), or the source cluster's, come with the data of a
// restore — that cluster's setpoint serves another server, so the role is
// nobody's but ours here. CNPG then sets it to our spec (password,
// memberships, comment). A lookup that fails is returned as is.
func checkRoleAbsent(ctx context.Context, p *pass, role, reason string) error {
	lookup := p.deps.roleComment
	if lookup == nil {
		lookup = roleComment
	}
	comment, exists, err := lookup(ctx, p, role)
	if err != nil {
		return err
	}
	if !exists {
		return nil
	}
	if comment != nil && ownership.IsClusterMarker(*comment) {
		return nil
	}
	got := "none"
	if comment != nil {
		got = fmt.Sprintf("%q", *comment)
	}
	return &refusal{reason, fmt.Sprintf(
		"Postgres already has a role %s that setpoint did not create (comment %s, not %q); CloudNativePG would take it over, so setpoint leaves it untouched: drop or rename it",
		role, got, ownership.ClusterMarker(p.cluster.Namespace, p.cluster.Name))}
}

// roleComment reads role's comment over the pass's connection; exists is
// false when Postgres has no such role. pg_roles and shobj_description
// need no superuser, but this runs only as one (see claimMonitorRole).
func roleComment(ctx context.Context, p *pass, role string) (comment *string, exists bool, err error) {
	conn, _, err := p.postgresConn(ctx)
	if err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.deps.pgTimeout)
	defer cancel()
	err = conn.QueryRow(ctx, "SELECT shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname = $1", role).Scan(&comment)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read role %s: %w", role, err)
	}
	return comment, true, nil
}

// refusalHealth is the health of a refused monitor write, and false for
// any other error.
func refusalHealth(err error) (health, bool) {
	var r *refusal
	if !errors.As(err, &r) {
		return health{}, false
	}
	// The fix (a role dropped, an entry removed) may send no event we see.
	return pipeline.Failed(r.reason, r.message, ownership.ConflictRecheck), true
}
