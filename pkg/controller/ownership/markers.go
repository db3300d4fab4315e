package ownership

import (
	"fmt"
	"strings"
)

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

var markerPrefix = strings.TrimSuffix(PostgresMarker("", ""), "/")
