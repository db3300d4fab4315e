package grantplan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Kind is a kind of object privileges are held on.
type Kind string

const (
	Database  Kind = "database"
	Schema    Kind = "schema"
	Table     Kind = "table" // tables, views, materialized views, foreign tables
	Sequence  Kind = "sequence"
	Function  Kind = "function" // functions, aggregates, window functions
	Procedure Kind = "procedure"
	Type      Kind = "type" // in default privileges only
)

// kindOrder is the order of the statements on objects of each kind.
var kindOrder = map[Kind]int{Database: 0, Schema: 1, Table: 2, Sequence: 3, Function: 4, Procedure: 5, Type: 6}

// privilegeOrder is the order of the privileges in one statement.
var privilegeOrder = []string{"CONNECT", "TEMPORARY", "CREATE", "USAGE", "SELECT", "INSERT", "UPDATE",
	"DELETE", "TRUNCATE", "REFERENCES", "TRIGGER", "MAINTAIN", "EXECUTE"}

// databaseOwnerRole is the role PostgreSQL 15 and later give schema public
// to: whoever owns the database.
const databaseOwnerRole = "pg_database_owner"

// Object is one object of the catalog: the database, a schema, or a
// relation or routine in a schema.
type Object struct {
	Kind Kind
	// Schema holds the object; "" for the database and for a schema.
	Schema string
	Name   string
	// Args are a routine's identity arguments
	// (pg_get_function_identity_arguments).
	Args  string
	Owner string
}

func (o Object) key() string {
	return string(o.Kind) + "\x00" + o.Schema + "\x00" + o.Name + "\x00" + o.Args
}

// sql is the object as a GRANT names it: DATABASE "d", TABLE "s"."t",
// FUNCTION "s"."f"(integer).
func (o Object) sql() string {
	switch o.Kind {
	case Database, Schema:
		return strings.ToUpper(string(o.Kind)) + " " + ident(o.Name)
	case Function, Procedure:
		return strings.ToUpper(string(o.Kind)) + " " + ident(o.Schema, o.Name) + "(" + o.Args + ")"
	default:
		return strings.ToUpper(string(o.Kind)) + " " + ident(o.Schema, o.Name)
	}
}

// Held is one privilege the catalog shows a role holding on an object
// (a row of aclexplode).
type Held struct {
	Object
	Grantee   string
	Privilege string
	Grantable bool
}

// Default is one default privilege: what Grantee gets on the objects of
// kind On that Owner creates later in Schema ("" for every schema).
type Default struct {
	Owner     string
	Schema    string
	On        Kind
	Grantee   string
	Privilege string
	Grantable bool
}

func (d Default) key() string {
	return fmt.Sprintf("%d\x00%s\x00%s\x00%s\x00%s", kindOrder[d.On], d.Owner, d.Schema, d.On, d.Grantee)
}

// Catalog is what one read of a database found: its owner, its schemas
// and the objects in them with their owners, the privileges held on them
// by the roles asked about, and the default privileges those roles get.
type Catalog struct {
	DatabaseOwner string
	Objects       []Object
	Held          []Held
	Defaults      []Default
}

// SchemaOwner is a declared schema and the role that owns it.
type SchemaOwner struct {
	Name  string
	Owner string
}

// Grant is declared privileges of Role on the database (Schema and Names
// unset), a schema, or the objects of a kind in a schema: those named,
// or all when Names is nil. On Function covers procedures too.
type Grant struct {
	Role       string
	On         Kind
	Schema     string
	Names      []string
	Privileges []string
}

// Want is a database's declared privilege model, in role names.
type Want struct {
	Database string
	// Owner owns the database; it runs the plan and is left alone.
	Owner string
	// Schemas are the schemas to create and keep, beside public.
	Schemas []SchemaOwner
	// Roles hold exactly what Grants and Defaults give them.
	Roles []string
	// Managed are the roles setpoint created (Owner and Roles): only the
	// objects they own are granted or revoked on.
	Managed []string
	Grants  []Grant
	// Defaults are declared default privileges (Grantable is ignored).
	Defaults []Default
}

// Result is a plan: its statements, in order, and what they do that a
// report names.
type Result struct {
	Statements []string
	// Revoked names each privilege held and not declared that the plan
	// revokes ("SELECT ON TABLE "s"."t" FROM "r"").
	Revoked []string
	// Skipped names what a declaration covers that the plan leaves
	// alone: objects owned by a role setpoint did not create, tables
	// named that do not exist.
	Skipped []string
	// Kept names the schemas a role of setpoint's owns that are not
	// declared (removed from the spec, or made by hand): left in place,
	// with their data.
	Kept []string
	// Lines are, per role and object (or default privilege), what the
	// spec declares, what the catalog shows held and what the plan does
	// about the difference: what `kubectl setpoint explain --privileges`
	// shows. A line on an object a role setpoint did not create owns is
	// LeftAlone.
	Lines []Line
}

// Line is one role's privileges on one object, or one default privilege
// it gets, as Plan compared them.
type Line struct {
	Role string `json:"role"`
	// On names the object as a GRANT does (TABLE "s"."t"), or the default
	// privilege (DEFAULT FOR ROLE "o" IN SCHEMA "s" ON TABLES).
	On       string   `json:"on"`
	Declared []string `json:"declared,omitempty"`
	Held     []string `json:"held,omitempty"`
	// Grant, Revoke and RevokeOption are what the plan grants, revokes,
	// and revokes the grant option of.
	Grant        []string `json:"grant,omitempty"`
	Revoke       []string `json:"revoke,omitempty"`
	RevokeOption []string `json:"revokeGrantOption,omitempty"`
	// LeftAlone: the object's owner is not a role of setpoint's, so
	// nothing is granted or revoked on it, declared or held.
	LeftAlone bool `json:"leftAlone,omitempty"`
}

// Differs: the plan grants or revokes something on the line, or it is
// left alone while what is held is not what is declared.
func (l Line) Differs() bool {
	return len(l.Grant)+len(l.Revoke)+len(l.RevokeOption) > 0 || (l.LeftAlone && !slices.Equal(l.Declared, l.Held))
}

// Plan is the statements that give every role of w.Roles exactly what w
// declares on the database c describes. See the package doc for the rules.
func Plan(w Want, c Catalog) Result {
	var r Result
	managed := set(w.Managed)
	exact := set(w.Roles)
	owner := func(role string) string {
		if role == databaseOwnerRole {
			return w.Owner
		}
		return role
	}
	// Schemas as they will be once the plan has run.
	schemas := map[string]Object{}
	for _, o := range c.Objects {
		if o.Kind == Schema {
			o.Owner = owner(o.Owner)
			schemas[o.Name] = o
		}
	}
	for _, s := range w.Schemas {
		cur, ok := schemas[s.Name]
		switch {
		case !ok:
			r.Statements = append(r.Statements, "CREATE SCHEMA "+ident(s.Name)+" AUTHORIZATION "+ident(s.Owner))
		case cur.Owner == s.Owner:
			continue
		case managed[cur.Owner]:
			r.Statements = append(r.Statements, "ALTER SCHEMA "+ident(s.Name)+" OWNER TO "+ident(s.Owner))
		default:
			r.Skipped = append(r.Skipped, fmt.Sprintf("schema %s is owned by %s, not a role of setpoint's", ident(s.Name), ident(cur.Owner)))
			continue
		}
		schemas[s.Name] = Object{Kind: Schema, Name: s.Name, Owner: s.Owner}
	}
	declared := map[string]bool{publicSchema: true}
	for _, s := range w.Schemas {
		declared[s.Name] = true
	}
	for _, o := range c.Objects {
		if o.Kind == Schema && !declared[o.Name] && managed[owner(o.Owner)] {
			r.Kept = append(r.Kept, o.Name)
		}
	}
	slices.Sort(r.Kept)
	db := Object{Kind: Database, Name: w.Database, Owner: owner(c.DatabaseOwner)}
	inSchema := map[string][]Object{}
	for _, o := range c.Objects {
		if o.Kind != Schema && o.Kind != Database {
			o.Owner = owner(o.Owner)
			inSchema[o.Schema] = append(inSchema[o.Schema], o)
		}
	}

	// What is declared, per object and role; foreign holds what is
	// declared and held on objects others own, reported and left alone.
	want := map[string]*entry{}
	foreignWant, foreignHeld := map[string]*entry{}, map[string]*entry{}
	skipped := map[string]bool{}
	skip := func(msg string) {
		if !skipped[msg] {
			skipped[msg] = true
			r.Skipped = append(r.Skipped, msg)
		}
	}
	add := func(o Object, role string, privs []string) {
		if !managed[o.Owner] {
			skip(fmt.Sprintf("%s is owned by %s, not a role of setpoint's", o.sql(), ident(o.Owner)))
			e := at(foreignWant, o, role)
			for _, p := range privs {
				e.privs[p] = false
			}
			return
		}
		if o.Owner == role {
			return // an owner holds every privilege on what it owns
		}
		e := at(want, o, role)
		for _, p := range privs {
			e.privs[p] = false
		}
	}
	for _, g := range w.Grants {
		switch g.On {
		case Database:
			add(db, g.Role, g.Privileges)
		case Schema:
			if s, ok := schemas[g.Schema]; ok {
				add(s, g.Role, g.Privileges)
			} else {
				skip(fmt.Sprintf("schema %s does not exist", ident(g.Schema)))
			}
		default:
			found := map[string]bool{}
			for _, o := range inSchema[g.Schema] {
				if !fits(g.On, o.Kind) || (g.Names != nil && !slices.Contains(g.Names, o.Name)) {
					continue
				}
				found[o.Name] = true
				add(o, g.Role, g.Privileges)
			}
			for _, n := range g.Names {
				if !found[n] {
					skip(fmt.Sprintf("table %s does not exist", ident(g.Schema, n)))
				}
			}
		}
	}

	// What is held, by the roles whose privileges are exact, on objects
	// setpoint may act on.
	held := map[string]*entry{}
	for _, h := range c.Held {
		h.Owner = owner(h.Owner)
		switch h.Kind {
		case Database:
			h.Object = db
		case Schema:
			if s, ok := schemas[h.Name]; ok {
				h.Owner = s.Owner // its owner once the plan has run
			}
		}
		if exact[h.Grantee] && !managed[h.Owner] && h.Grantee != h.Owner {
			at(foreignHeld, h.Object, h.Grantee).privs[h.Privilege] = h.Grantable
		}
		if !exact[h.Grantee] || !managed[h.Owner] || h.Grantee == h.Owner {
			continue
		}
		at(held, h.Object, h.Grantee).privs[h.Privilege] = h.Grantable
	}

	var grants, revokes []string
	for _, k := range sortedKeys(want, held) {
		wt, hd := want[k], held[k]
		e := cmp.Or(wt, hd)
		on := " ON " + e.obj.sql()
		add, take, option := diff(privsOf(wt), privsOf(hd))
		r.Lines = append(r.Lines, Line{Role: e.role, On: e.obj.sql(), Declared: names(privsOf(wt)), Held: names(privsOf(hd)),
			Grant: add, Revoke: take, RevokeOption: option})
		if len(add) > 0 {
			grants = append(grants, "GRANT "+strings.Join(add, ", ")+on+" TO "+ident(e.role))
		}
		if len(take) > 0 {
			revokes = append(revokes, "REVOKE "+strings.Join(take, ", ")+on+" FROM "+ident(e.role))
			for _, p := range take {
				r.Revoked = append(r.Revoked, p+on+" FROM "+ident(e.role))
			}
		}
		if len(option) > 0 {
			revokes = append(revokes, "REVOKE GRANT OPTION FOR "+strings.Join(option, ", ")+on+" FROM "+ident(e.role))
			for _, p := range option {
				r.Revoked = append(r.Revoked, "GRANT OPTION FOR "+p+on+" FROM "+ident(e.role))
			}
		}
	}
	for _, k := range sortedKeys(foreignWant, foreignHeld) {
		wt, hd := foreignWant[k], foreignHeld[k]
		e := cmp.Or(wt, hd)
		r.Lines = append(r.Lines, Line{Role: e.role, On: e.obj.sql(), Declared: names(privsOf(wt)), Held: names(privsOf(hd)), LeftAlone: true})
	}
	r.Statements = append(r.Statements, grants...)
	r.Statements = append(r.Statements, revokes...)
	r.Statements = append(r.Statements, planDefaults(w, c, managed, exact, owner, &r)...)
	return r
}

// names are the privileges of privs in privilegeOrder.
func names(privs map[string]bool) []string {
	var out []string
	for _, p := range privilegeOrder {
		if _, ok := privs[p]; ok {
			out = append(out, p)
		}
	}
	return out
}

// planDefaults is the ALTER DEFAULT PRIVILEGES statements of the plan:
// grants first, then revokes.
func planDefaults(w Want, c Catalog, managed, exact map[string]bool, owner func(string) string, r *Result) []string {
	type dentry struct {
		d     Default
		privs map[string]bool
	}
	at := func(m map[string]*dentry, d Default) *dentry {
		k := d.key()
		if m[k] == nil {
			m[k] = &dentry{d: d, privs: map[string]bool{}}
		}
		return m[k]
	}
	want, held := map[string]*dentry{}, map[string]*dentry{}
	for _, d := range w.Defaults {
		if d.Owner != d.Grantee {
			at(want, d).privs[d.Privilege] = false
		}
	}
	for _, d := range c.Defaults {
		d.Owner = owner(d.Owner)
		if exact[d.Grantee] && managed[d.Owner] && d.Owner != d.Grantee {
			at(held, d).privs[d.Privilege] = d.Grantable
		}
	}
	keys := make([]string, 0, len(want)+len(held))
	for k := range want {
		keys = append(keys, k)
	}
	for k := range held {
		if want[k] == nil {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var grants, revokes []string
	for _, k := range keys {
		wt, hd := want[k], held[k]
		d := cmp.Or(wt, hd).d
		head := "ALTER DEFAULT PRIVILEGES FOR ROLE " + ident(d.Owner)
		if d.Schema != "" {
			head += " IN SCHEMA " + ident(d.Schema)
		}
		on := " ON " + defaultNoun[d.On]
		var w, h map[string]bool
		if wt != nil {
			w = wt.privs
		}
		if hd != nil {
			h = hd.privs
		}
		add, take, option := diff(w, h)
		r.Lines = append(r.Lines, Line{Role: d.Grantee, On: "DEFAULT FOR ROLE " + ident(d.Owner) + inSchema(d.Schema) + on,
			Declared: names(w), Held: names(h), Grant: add, Revoke: take, RevokeOption: option})
		if len(add) > 0 {
			grants = append(grants, head+" GRANT "+strings.Join(add, ", ")+on+" TO "+ident(d.Grantee))
		}
		if len(take) > 0 {
			revokes = append(revokes, head+" REVOKE "+strings.Join(take, ", ")+on+" FROM "+ident(d.Grantee))
			for _, p := range take {
				r.Revoked = append(r.Revoked, "default "+p+on+" of "+ident(d.Owner)+inSchema(d.Schema)+" FROM "+ident(d.Grantee))
			}
		}
		if len(option) > 0 {
			revokes = append(revokes, head+" REVOKE GRANT OPTION FOR "+strings.Join(option, ", ")+on+" FROM "+ident(d.Grantee))
			for _, p := range option {
				r.Revoked = append(r.Revoked, "default GRANT OPTION FOR "+p+on+" of "+ident(d.Owner)+inSchema(d.Schema)+" FROM "+ident(d.Grantee))
			}
		}
	}
	return append(grants, revokes...)
}

func inSchema(s string) string {
	if s == "" {
		return ""
	}
	return " IN SCHEMA " + ident(s)
}

// defaultNoun is how ALTER DEFAULT PRIVILEGES names a kind.
var defaultNoun = map[Kind]string{Table: "TABLES", Sequence: "SEQUENCES", Function: "FUNCTIONS", Type: "TYPES", Schema: "SCHEMAS"}

// fits reports whether a grant on kind covers an object of kind k.
func fits(on, k Kind) bool {
	return on == k || (on == Function && k == Procedure)
}

// entry is the privileges of one role on one object: each privilege and
// whether it is held with grant option.
type entry struct {
	obj   Object
	role  string
	privs map[string]bool
}

func at(m map[string]*entry, o Object, role string) *entry {
	k := fmt.Sprintf("%d\x00%s\x00%s", kindOrder[o.Kind], o.key(), role)
	if m[k] == nil {
		m[k] = &entry{obj: o, role: role, privs: map[string]bool{}}
	}
	return m[k]
}

func privsOf(e *entry) map[string]bool {
	if e == nil {
		return nil
	}
	return e.privs
}

// diff compares the privileges declared with those held (each with
// whether it is held with grant option), in privilegeOrder: those to
// grant, those to revoke, and those whose grant option to revoke.
func diff(want, held map[string]bool) (add, take, option []string) {
	for _, p := range privilegeOrder {
		_, w := want[p]
		g, h := held[p]
		switch {
		case w && !h:
			add = append(add, p)
		case h && !w:
			take = append(take, p)
		case w && g:
			option = append(option, p)
		}
	}
	return add, take, option
}

func sortedKeys(a, b map[string]*entry) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if a[k] == nil {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func set(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// ident quotes an identifier, qualified by the parts before the last:
// double quotes, an inner quote doubled, so any name is safe.
func ident(parts ...string) string { return pgx.Identifier(parts).Sanitize() }
