package cluster

import "github.com/setpoint-dev/setpoint/pkg/naming"

// Certificate authentication (a PostgresDatabase's databases[].authentication:
// certificate). CloudNativePG issues a client certificate per DatabaseRole
// that asks for one, but it does not touch pg_hba.conf: its generated
// rules end with `host all all all scram-sha-256`, so a certificate alone
// would not log anybody in. setpoint cannot list the roles there — the
// Cluster's pg_hba is one atomic list, and naming every database's roles in
// it would grow the Cluster with the databases, which DatabaseRoles exist to
// avoid. Instead every cluster has one group role, naming.CertAuthGroup, and two
// fixed pg_hba lines for its members; a role of a certificate database is
// made a member through its DatabaseRole's inRoles.

// CertAuthHBA are the pg_hba.conf lines setpoint puts before the class's
// and the cluster's own: a member of naming.CertAuthGroup logs in over TLS with a
// certificate whose CN is its name (Postgres's cert method), and not at
// all without TLS — so the role's password, if it has one, opens nothing.
// A '+' group that does not exist (yet) matches nobody, so the lines are
// harmless before the group is created.
var CertAuthHBA = []string{
	"hostssl all +" + naming.CertAuthGroup + " all cert",
	"hostnossl all +" + naming.CertAuthGroup + " all reject",
}
