package grantplan

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// CatalogQuery is the one read a plan needs, run in the database it plans
// for, with $1 the roles whose privileges are read (Want.Managed): the
// database, every schema but the system ones, the relations and routines
// in them with their owners, the privileges the roles hold on them
// (aclexplode over pg_database, pg_namespace, pg_class and pg_proc), and
// the default privileges they get (pg_default_acl). Each row is a Row.
const CatalogQuery = `WITH ours AS (SELECT oid FROM pg_roles WHERE rolname = ANY($1::text[])),
spaces AS (SELECT oid, nspname, nspowner, nspacl FROM pg_namespace
  WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema'),
objs AS (
  SELECT 'database'::text AS kind, ''::text AS schema, d.datname::text AS name, ''::text AS args, d.datdba AS owner, d.datacl AS acl
  FROM pg_database d WHERE d.datname = current_database()
  UNION ALL
  SELECT 'schema', '', s.nspname::text, '', s.nspowner, s.nspacl FROM spaces s
  UNION ALL
  SELECT CASE c.relkind WHEN 'S' THEN 'sequence' ELSE 'table' END, s.nspname::text, c.relname::text, '', c.relowner, c.relacl
  FROM pg_class c JOIN spaces s ON s.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
  UNION ALL
  SELECT CASE p.prokind WHEN 'p' THEN 'procedure' ELSE 'function' END, s.nspname::text, p.proname::text,
    pg_get_function_identity_arguments(p.oid), p.proowner, p.proacl
  FROM pg_proc p JOIN spaces s ON s.oid = p.pronamespace
)
SELECT 'object', o.kind, o.schema, o.name, o.args, pg_get_userbyid(o.owner)::text, '', '', false FROM objs o
UNION ALL
SELECT 'held', o.kind, o.schema, o.name, o.args, pg_get_userbyid(o.owner)::text, pg_get_userbyid(a.grantee)::text, a.privilege_type, a.is_grantable
FROM objs o, aclexplode(o.acl) a WHERE a.grantee IN (SELECT oid FROM ours)
UNION ALL
SELECT 'default', CASE d.defaclobjtype WHEN 'r' THEN 'table' WHEN 'S' THEN 'sequence' WHEN 'f' THEN 'function' WHEN 'T' THEN 'type' ELSE 'schema' END,
  coalesce(n.nspname::text, ''), '', '', pg_get_userbyid(d.defaclrole)::text, pg_get_userbyid(a.grantee)::text, a.privilege_type, a.is_grantable
FROM pg_default_acl d LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace, aclexplode(d.defaclacl) a
WHERE a.grantee IN (SELECT oid FROM ours)`

// Row is one row of CatalogQuery: an object ("object"), a privilege held
// on one ("held"), or a default privilege ("default").
type Row struct {
	Type, Kind, Schema, Name, Args, Owner, Grantee, Privilege string
	Grantable                                                 bool
}

// FromRows is the catalog CatalogQuery's rows describe.
func FromRows(rows []Row) Catalog {
	var c Catalog
	for _, r := range rows {
		o := Object{Kind: Kind(r.Kind), Schema: r.Schema, Name: r.Name, Args: r.Args, Owner: r.Owner}
		switch r.Type {
		case "object":
			if o.Kind == Database {
				c.DatabaseOwner = r.Owner
				continue
			}
			c.Objects = append(c.Objects, o)
		case "held":
			c.Held = append(c.Held, Held{Object: o, Grantee: r.Grantee, Privilege: r.Privilege, Grantable: r.Grantable})
		case "default":
			c.Defaults = append(c.Defaults, Default{Owner: r.Owner, Schema: r.Schema, On: Kind(r.Kind),
				Grantee: r.Grantee, Privilege: r.Privilege, Grantable: r.Grantable})
		}
	}
	return c
}

// Querier runs a query: a *pgx.Conn, a pgx.Tx, a pool.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Read runs CatalogQuery on q for the roles managed (Want.Managed): the
// one read the operator plans from, and the one `kubectl setpoint explain
// --privileges` shows. The caller bounds it with ctx.
func Read(ctx context.Context, q Querier, managed []string) (Catalog, error) {
	rows, err := q.Query(ctx, CatalogQuery, managed)
	if err != nil {
		return Catalog{}, fmt.Errorf("read privileges: %w", err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var g Row
		if err := rows.Scan(&g.Type, &g.Kind, &g.Schema, &g.Name, &g.Args, &g.Owner, &g.Grantee, &g.Privilege, &g.Grantable); err != nil {
			return Catalog{}, fmt.Errorf("read privileges: %w", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return Catalog{}, fmt.Errorf("read privileges: %w", err)
	}
	return FromRows(out), nil
}
