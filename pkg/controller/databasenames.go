package controller

import (
	"fmt"
	"strings"
)

// DatabaseNames are the deterministic names of one database's objects and
// roles. Both controllers derive them from a PostgresDatabase's spec: the
// database controller to create the objects, the cluster controller to
// know which roles a PostgresDatabase may ask for.
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
	CNPG        string // the CNPG Database
	AdminSecret string
	RWSecret    string
	ConfigMap   string
}

// NamesOf are the names of database db of PostgresDatabase pgdb.
func NamesOf(pgdb, db string) DatabaseNames {
	base := pgdb + "-" + strings.ReplaceAll(db, "_", "-")
	return DatabaseNames{
		DB:          db,
		AdminRole:   db + "_admin",
		RWRole:      db + "_rw",
		CNPG:        base,
		AdminSecret: base + "-admin",
		RWSecret:    base + "-rw",
		ConfigMap:   base + "-config",
	}
}

// PostgresMarker is the comment on every role (through CNPG's managed
// roles) and database setpoint creates: Postgres's own record of what is
// setpoint's, and for which PostgresDatabase. A role or database without
// it was not created by setpoint and is never altered or dropped; one that
// names another PostgresDatabase is that object's (or was retained for it).
func PostgresMarker(namespace, pgdb string) string {
	return fmt.Sprintf("managed by setpoint for PostgresDatabase %s/%s", namespace, pgdb)
}

// MarkerOwner returns the "<namespace>/<name>" a PostgresMarker comment
// names, and false for any other comment.
func MarkerOwner(comment string) (string, bool) {
	owner, ok := strings.CutPrefix(comment, markerPrefix)
	return owner, ok && owner != ""
}

var markerPrefix = strings.TrimSuffix(PostgresMarker("", ""), "/")
