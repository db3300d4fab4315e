package database

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// statementTimeoutParam is the parameter a database's statementTimeout
// sets for every session of the database.
const statementTimeoutParam = "statement_timeout"

// statementTimeoutPlan is what makes database's default
// statement_timeout timeout (statementTimeoutOf), given what the database
// sets now (pg_db_role_setting, for every role): nothing when it already
// does, SET in whole milliseconds, or RESET when nothing declares one. Run as the
// database's owner, who may set a parameter any user may set
// (statement_timeout is one) on its database.
func statementTimeoutPlan(database string, timeout *metav1.Duration, have string, set bool) []string {
	db := pgx.Identifier{database}.Sanitize()
	if timeout == nil {
		if !set {
			return nil
		}
		return []string{fmt.Sprintf("ALTER DATABASE %s RESET %s", db, statementTimeoutParam)}
	}
	want := strconv.FormatInt(timeout.Milliseconds(), 10)
	if set && have == want {
		return nil
	}
	return []string{fmt.Sprintf("ALTER DATABASE %s SET %s = %s", db, statementTimeoutParam, want)}
}

// ensureStatementTimeout brings database d's default statement_timeout
// to what its spec or its cluster's defaults declare, as t (the owner).
func (p *pass) ensureStatementTimeout(ctx context.Context, t postgres.Target, d pgv1.DatabaseSpec) error {
	have, set, err := p.deps.sql.databaseSetting(ctx, t, d.Name, statementTimeoutParam)
	if err != nil {
		return err
	}
	if stmts := statementTimeoutPlan(d.Name, p.statementTimeoutOf(d), have, set); len(stmts) > 0 {
		if err := p.deps.sql.execTx(ctx, t, stmts); err != nil {
			return fmt.Errorf("set %s of database %s: %w", statementTimeoutParam, d.Name, err)
		}
	}
	return nil
}

// statementTimeoutNote is what PrivilegesReady says of the databases'
// default statement_timeouts ("" when none declares one). A pass whose
// note differs from the one the condition carries applies them again,
// though the PostgresDatabase's generation is the same: the defaults
// may have changed in the cluster or its class.
func (p *pass) statementTimeoutNote() string {
	var out []string
	for _, d := range p.db.Spec.Databases {
		if st := p.statementTimeoutOf(d); st != nil {
			out = append(out, fmt.Sprintf("%s %s", d.Name, st.Duration))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; default statement_timeout: " + strings.Join(out, ", ")
}

// statementTimeoutsHeld: the condition message msg says the notes of
// this pass, none or the same.
func statementTimeoutsHeld(msg, note string) bool {
	if note == "" {
		return !strings.Contains(msg, "; default statement_timeout: ")
	}
	return strings.Contains(msg, note+";") || strings.HasSuffix(msg, note)
}
