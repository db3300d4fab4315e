package naming

// setpoint's own Postgres roles on every cluster, and their DatabaseRoles.

// MonitorRole is the Postgres role setpoint's own checks log in as, so
// that they need no superuser: a member of pg_monitor, which reads every
// catalog and statistics view the checks use (pg_roles, pg_database and
// their comments, pg_settings, pg_stat_activity, pg_stat_replication, the
// WAL directory's size) and can write nothing. The PostgresCluster
// controller creates it per cluster, as a CNPG DatabaseRole
// (MonitorRoleObject) with its own generated Secret (MonitorSecret), and
// publishes that Secret in status.resources.monitorSecretRef once CNPG has
// applied it.
const MonitorRole = "setpoint_monitor"

// MonitorRoleObject is the name of the DatabaseRole of cluster's
// MonitorRole: named as a database's roles are (RoleObject), which no
// database's role can collide with, since those all end in _admin, _rw or
// _ro.
func MonitorRoleObject(cluster string) string { return RoleObject(cluster, MonitorRole) }

// CertAuthGroup is the NOLOGIN role whose members log in by client
// certificate only (see cluster.CertAuthHBA). Membership grants
// nothing: the role holds no privilege.
const CertAuthGroup = "setpoint_cert_auth"

// CertAuthGroupObject is the name of the DatabaseRole of cluster's
// CertAuthGroup, named like MonitorRoleObject; no database's role ends in
// _auth.
func CertAuthGroupObject(cluster string) string { return RoleObject(cluster, CertAuthGroup) }
