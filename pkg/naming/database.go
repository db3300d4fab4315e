package naming

import "strings"

// DatabaseNames are the deterministic names of one database's objects and
// roles. Both controllers derive them from a PostgresDatabase's spec: the
// database controller to create the objects, the cluster controller to
// know which roles a PostgresDatabase may ask for; the kubectl plugin to
// find them again.
//
// Kubernetes object names cannot contain '_', which database names may, so
// the database part of an object name has every '_' replaced by '-':
// PostgresDatabase "shop", database "order_items" → Secret
// "shop-order-items-admin". Database names cannot contain '-' (the CRD's
// pattern), so the mapping is injective within one PostgresDatabase.
type DatabaseNames struct {
	DB          string // the Postgres database name
	AdminRole   string
	RWRole      string
	RORole      string // the read-only role (readOnlyRole)
	CNPG        string // the CNPG Database
	AdminSecret string
	RWSecret    string
	ROSecret    string
	ConfigMap   string
	// Stem starts the names of the Secrets and ConfigMap, in the
	// PostgresDatabase's namespace: <pgdb>-<database with '-' for '_'>.
	Stem string
}

// Database are the names of database db of PostgresDatabase pgdb.
func Database(pgdb, db string) DatabaseNames {
	base := pgdb + "-" + strings.ReplaceAll(db, "_", "-")
	return DatabaseNames{
		DB:          db,
		AdminRole:   db + "_admin",
		RWRole:      db + "_rw",
		RORole:      db + "_ro",
		CNPG:        base,
		AdminSecret: base + "-admin",
		RWSecret:    base + "-rw",
		ROSecret:    base + "-ro",
		ConfigMap:   base + "-config",
		Stem:        base,
	}
}

// Roles are every role setpoint may create for the database, in a fixed
// order: what deletion cleans up, whether or not the spec still asks for
// the read-only role.
func (n DatabaseNames) Roles() []string { return []string{n.AdminRole, n.RWRole, n.RORole} }

// Secrets are the generated Secrets of Roles, in the same order.
func (n DatabaseNames) Secrets() []string { return []string{n.AdminSecret, n.RWSecret, n.ROSecret} }

// Role is the Postgres role of name within the database: admin (or ""),
// rw and ro are the fixed roles, any other name an extra role of
// spec.roles, <database>_<name>.
func (n DatabaseNames) Role(name string) string {
	if role, _, ok := n.fixed(name); ok {
		return role
	}
	return n.DB + "_" + name
}

// Secret is the generated Secret of the role of name within the
// database, named like the fixed roles' (<base>-<name with '-' for '_'>):
// two roles of one PostgresDatabase have one Secret name only if they
// have one role name.
func (n DatabaseNames) Secret(name string) string {
	if _, secret, ok := n.fixed(name); ok {
		return secret
	}
	return n.Stem + "-" + strings.ReplaceAll(name, "_", "-")
}

// Binding is the Service Binding Secret of the role of name within the
// database (binding.go): its Secret's name with -binding. Within one
// PostgresDatabase a role's binding can meet another role's Secret (role
// x and role x_binding): the database controller refuses such a spec.
func (n DatabaseNames) Binding(name string) string { return n.Secret(name) + "-binding" }

// fixed is the role and Secret of a fixed role by its name within the
// database; ok is false for any other name.
func (n DatabaseNames) fixed(name string) (role, secret string, ok bool) {
	switch name {
	case "admin", "":
		return n.AdminRole, n.AdminSecret, true
	case "rw":
		return n.RWRole, n.RWSecret, true
	case "ro":
		return n.RORole, n.ROSecret, true
	}
	return "", "", false
}
