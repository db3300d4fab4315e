package inspect

import (
	"context"
	"fmt"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// Privileges is one database's privileges as `kubectl setpoint explain
// --privileges` shows them: per role of setpoint's, what the spec
// declares next to what Postgres shows it holding, and what setpoint's
// next pass does about the difference. It is the operator's own plan
// (grantplan.Plan) over one read of the catalog, not a second derivation.
type Privileges struct {
	// Database is the Postgres database.
	Database string `json:"database"`
	// Exact: the database declares schemas or roles, so every pass of the
	// operator revokes what is held and not declared. One that declares
	// neither is granted once per generation: a difference there stays
	// until the spec changes.
	Exact bool `json:"exact"`
	// Statements is how many statements the next pass would run.
	Statements int             `json:"pendingStatements"`
	Roles      []RolePrivilege `json:"roles"`
	// LeftAlone names what a declaration covers that setpoint does not
	// touch: objects others own, tables that do not exist.
	LeftAlone []string `json:"leftAlone,omitempty"`
	// KeptSchemas are schemas of setpoint's roles the spec does not
	// declare, kept with their data.
	KeptSchemas []string `json:"keptSchemas,omitempty"`
}

// RolePrivilege is one role's privileges, an entry per object (or
// default privilege) that is declared or held.
type RolePrivilege struct {
	Role  string           `json:"role"`
	Lines []grantplan.Line `json:"privileges"`
}

// Differs: some line of the role's differs (grantplan.Line.Differs).
func (r RolePrivilege) Differs() bool {
	for _, l := range r.Lines {
		if l.Differs() {
			return true
		}
	}
	return false
}

// ComparePrivileges is database d's privileges as the catalog c (read
// with grantplan.Read for grantplan.Declared(d, n).Managed) shows them.
func ComparePrivileges(d pgv1.DatabaseSpec, n naming.DatabaseNames, c grantplan.Catalog) Privileges {
	w := grantplan.Declared(d, n)
	plan := grantplan.Plan(w, c)
	p := Privileges{Database: n.DB, Exact: grantplan.KeptExact(d), Statements: len(plan.Statements),
		LeftAlone: plan.Skipped, KeptSchemas: plan.Kept}
	byRole := map[string]int{}
	for _, role := range w.Roles {
		byRole[role] = len(p.Roles)
		p.Roles = append(p.Roles, RolePrivilege{Role: role})
	}
	for _, l := range plan.Lines {
		if i, ok := byRole[l.Role]; ok {
			p.Roles[i].Lines = append(p.Roles[i].Lines, l)
		}
	}
	return p
}

// PrivilegeTarget is one database whose privileges to compare: its spec
// entry, its names, and the connection as its owner role (<db>_admin),
// the role the operator plans and applies as.
type PrivilegeTarget struct {
	Spec  pgv1.DatabaseSpec
	Names naming.DatabaseNames
	Conn  *Connection
}

// PrivilegeTargets are the databases of PostgresDatabase name (only
// database, when set), each with its owner's connection and password.
func (r Reader) PrivilegeTargets(ctx context.Context, name, database string, anyway bool) ([]PrivilegeTarget, error) {
	db, err := r.PG.PostgresV1alpha1().PostgresDatabases(r.Namespace).Get(ctx, name, getOpts)
	if err != nil {
		return nil, fmt.Errorf("get PostgresDatabase %s/%s: %w", r.Namespace, name, err)
	}
	var out []PrivilegeTarget
	for _, d := range db.Spec.Databases {
		if database != "" && d.Name != database {
			continue
		}
		conn, err := r.Connection(ctx, name, ConnectionOptions{Database: d.Name, Role: "admin", WithPassword: true, Anyway: anyway})
		if err != nil {
			return nil, err
		}
		out = append(out, PrivilegeTarget{Spec: d, Names: naming.Database(db.Name, d.Name), Conn: conn})
	}
	if len(out) == 0 {
		_, err := pickDatabase(db, database)
		return nil, err
	}
	return out, nil
}
