package grantplan

import (
	"slices"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// publicSchema is the schema every database has; its owner is the
// database's owner (pg_database_owner).
const publicSchema = "public"

// ExtraRoles are the roles of d's spec.roles beyond the fixed ones, by
// their Postgres names, in spec order.
func ExtraRoles(d pgv1.DatabaseSpec, n naming.DatabaseNames) []string {
	var out []string
	for _, r := range d.Roles {
		if r.Name != "rw" && r.Name != "ro" {
			out = append(out, n.Role(r.Name))
		}
	}
	return out
}

// Declared is the privilege model of database d: the fixed roles' own
// grants (rw reads and writes public, ro reads public and every declared
// schema, both for what exists and what the schemas' owners create later),
// then what spec.roles declares.
//
// A grant on all tables, sequences or functions of a schema also covers
// those created later: it brings default privileges for the schema's
// owner, and for the database's owner when that is another role.
func Declared(d pgv1.DatabaseSpec, n naming.DatabaseNames) Want {
	w := Want{Database: n.DB, Owner: n.AdminRole, Roles: []string{n.RWRole}}
	if d.ReadOnlyRole {
		w.Roles = append(w.Roles, n.RORole)
	}
	w.Roles = append(w.Roles, ExtraRoles(d, n)...)
	w.Managed = append([]string{n.AdminRole}, w.Roles...)
	schemaOwner := map[string]string{publicSchema: n.AdminRole}
	for _, s := range d.Schemas {
		o := n.Role(s.Owner)
		w.Schemas = append(w.Schemas, SchemaOwner{Name: s.Name, Owner: o})
		schemaOwner[s.Name] = o
	}
	grant := func(role string, on Kind, schema string, names []string, privs ...string) {
		w.Grants = append(w.Grants, Grant{Role: role, On: on, Schema: schema, Names: names, Privileges: privs})
		if on == Database || on == Schema || names != nil {
			return
		}
		for _, owner := range uniq(schemaOwner[schema], n.AdminRole) {
			for _, p := range privs {
				w.Defaults = append(w.Defaults, Default{Owner: owner, Schema: schema, On: on, Grantee: role, Privilege: p})
			}
		}
	}

	// The fixed roles' own, as grantPlan gives them on public.
	grant(n.RWRole, Database, "", nil, "CONNECT", "TEMPORARY")
	grant(n.RWRole, Schema, publicSchema, nil, "USAGE")
	grant(n.RWRole, Table, publicSchema, nil, "SELECT", "INSERT", "UPDATE", "DELETE")
	grant(n.RWRole, Sequence, publicSchema, nil, "USAGE", "SELECT")
	if d.ReadOnlyRole {
		grant(n.RORole, Database, "", nil, "CONNECT", "TEMPORARY")
		for _, s := range append([]string{publicSchema}, schemaNames(d)...) {
			grant(n.RORole, Schema, s, nil, "USAGE")
			grant(n.RORole, Table, s, nil, "SELECT")
			grant(n.RORole, Sequence, s, nil, "SELECT")
		}
	}

	for _, r := range d.Roles {
		role := n.Role(r.Name)
		for _, g := range r.Grants {
			on := kindOf(g.Object)
			var names []string
			if on == Table && len(g.Names) > 0 {
				names = g.Names
			}
			grant(role, on, g.Schema, names, privileges(g.Privileges)...)
		}
		for _, dp := range r.DefaultPrivileges {
			for _, p := range privileges(dp.Privileges) {
				w.Defaults = append(w.Defaults, Default{Owner: n.Role(dp.Owner), Schema: dp.Schema,
					On: kindOf(dp.Object), Grantee: role, Privilege: p})
			}
		}
	}
	return w
}

// Withdrawn is Declared with role — an extra role of d no longer
// declared, still in Postgres — held to nothing: its plan revokes every
// privilege role holds and the default privileges it gives the
// database's roles on what it creates (Postgres refuses to drop a role
// that holds or gives either), and keeps what d declares.
func Withdrawn(d pgv1.DatabaseSpec, n naming.DatabaseNames, role string) Want {
	w := Declared(d, n)
	w.Roles, w.Managed = append(w.Roles, role), append(w.Managed, role)
	return w
}

func schemaNames(d pgv1.DatabaseSpec) []string {
	out := make([]string, len(d.Schemas))
	for i, s := range d.Schemas {
		out[i] = s.Name
	}
	return out
}

func kindOf(o pgv1.GrantObject) Kind {
	switch o {
	case pgv1.GrantOnDatabase:
		return Database
	case pgv1.GrantOnSchema:
		return Schema
	case pgv1.GrantOnTables:
		return Table
	case pgv1.GrantOnSequences:
		return Sequence
	}
	return Function
}

func privileges(ps []pgv1.Privilege) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return out
}

// uniq is xs without repeats, in order.
func uniq(xs ...string) []string {
	var out []string
	for _, x := range xs {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// KeptExact: d declares schemas or roles, so its privileges are kept
// exact, read and planned on every pass. A database that declares
// neither is granted once per generation and costs no SQL on a resync.
func KeptExact(d pgv1.DatabaseSpec) bool {
	return len(d.Schemas) > 0 || len(d.Roles) > 0
}
