package naming

import "strings"

// A PostgresDatabase may live on a PostgresCluster of another namespace
// that admits its own (docs/adr/0016-shared-clusters-across-namespaces.md).
// Postgres roles and databases are unique per server, and so are the
// DatabaseRoles, CNPG Databases and password Secret copies in the
// cluster's namespace: each tenant's carry its namespace, so two tenants
// with the same PostgresDatabase and database names never ask for one
// name. A database of the cluster's own namespace keeps the names it
// always had.

// TenantPrefix is the prefix of the Postgres names of a PostgresDatabase
// of namespace on a cluster of clusterNamespace: "" in the cluster's own
// namespace, else the namespace with '_' for '-', and '_' (namespace
// "team-a": "team_a_"). Namespaces hold no '_', so two namespaces never
// share a prefix; a name may still be taken (namespace "team" with
// database "a_app" and namespace "team-a" with database "app" both ask
// for team_a_app), and then the ownership checks refuse the second with
// the holder named, as for any name taken.
func TenantPrefix(namespace, clusterNamespace string) string {
	if namespace == clusterNamespace {
		return ""
	}
	return strings.ReplaceAll(namespace, "-", "_") + "_"
}

// TenantDatabase are the names of database db of PostgresDatabase pgdb
// of namespace on a cluster of clusterNamespace: Database's, with the
// Postgres names prefixed (TenantPrefix) and the CNPG Database, in the
// cluster's namespace, named ClusterSide. In the cluster's own
// namespace it is Database.
func TenantDatabase(namespace, clusterNamespace, pgdb, db string) DatabaseNames {
	n := Database(pgdb, db)
	prefix := TenantPrefix(namespace, clusterNamespace)
	if prefix == "" {
		return n
	}
	n.DB = prefix + db
	n.AdminRole, n.RWRole, n.RORole = n.DB+"_admin", n.DB+"_rw", n.DB+"_ro"
	n.CNPG = ClusterSide(namespace, n.Stem)
	return n
}

// ClusterSide is the name, in a cluster's namespace, of object name of
// a tenant of namespace: "<namespace>.<name>". A namespace holds no dot,
// so the first dot splits the two and no two tenants share a name.
func ClusterSide(namespace, name string) string { return namespace + "." + name }
