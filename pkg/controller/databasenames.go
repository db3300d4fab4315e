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
	RORole      string // the read-only role (readOnlyRole)
	CNPG        string // the CNPG Database
	AdminSecret string
	RWSecret    string
	ROSecret    string
	ConfigMap   string
}

// NamesOf are the names of database db of PostgresDatabase pgdb.
func NamesOf(pgdb, db string) DatabaseNames {
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

// ClusterMarker is the comment on the roles setpoint creates for a
// PostgresCluster itself (MonitorRole): like PostgresMarker, Postgres's own
// record of whose role it is. MarkerOwner does not read it: no
// PostgresDatabase may take over a cluster's role.
func ClusterMarker(namespace, cluster string) string {
	return fmt.Sprintf("managed by setpoint for PostgresCluster %s/%s", namespace, cluster)
}

// IsClusterMarker says whether comment is a ClusterMarker, of any
// PostgresCluster.
func IsClusterMarker(comment string) bool {
	owner, ok := strings.CutPrefix(comment, clusterMarkerPrefix)
	ns, name, slash := strings.Cut(owner, "/")
	return ok && slash && ns != "" && name != ""
}

var clusterMarkerPrefix = strings.TrimSuffix(ClusterMarker("", ""), "/")

// MarkerOwner returns the "<namespace>/<name>" a PostgresMarker comment
// names, and false for any other comment.
func MarkerOwner(comment string) (string, bool) {
	owner, ok := strings.CutPrefix(comment, markerPrefix)
	return owner, ok && owner != ""
}

// Roles are every role setpoint may create for the database, in a fixed
// order: what deletion cleans up, whether or not the spec still asks for
// the read-only role.
func (n DatabaseNames) Roles() []string { return []string{n.AdminRole, n.RWRole, n.RORole} }

// Secrets are the generated Secrets of Roles, in the same order.
func (n DatabaseNames) Secrets() []string { return []string{n.AdminSecret, n.RWSecret, n.ROSecret} }

var markerPrefix = strings.TrimSuffix(PostgresMarker("", ""), "/")
