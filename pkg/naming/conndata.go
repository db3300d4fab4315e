package naming

// Keys of the connection data setpoint publishes: the cluster's ConfigMap
// (<cluster>-connection) and each database's (DatabaseNames.ConfigMap).
// Applications and the kubectl plugin read them by these names, so they
// are an API: a key is added, never renamed. Where both ConfigMaps carry
// a key it means the same thing in both.
const (
	// KeyHost is the read-write Service's host (RWService). The cluster's
	// ConfigMap also has it under KeyRWHost, its first name there.
	KeyHost   = "host"
	KeyRWHost = "rw-host"
	KeyROHost = "ro-host"
	KeyRHost  = "r-host" // cluster only: any instance (RService)
	KeyPort   = "port"

	// The poolers' hosts, while pooling is on. The read-write one is
	// KeyPoolerHost in a database's ConfigMap, KeyPoolerRWHost in the
	// cluster's.
	KeyPoolerHost   = "pooler-host"
	KeyPoolerRWHost = "pooler-rw-host"
	KeyPoolerROHost = "pooler-ro-host"

	// How to verify the server: the CA Secret, its key, and SSLMode.
	KeyCASecret    = "ca-secret"
	KeyCASecretKey = "ca-secret-key"
	KeySSLMode     = "sslmode"

	// The cluster's superuser, while superuser access is on.
	KeySuperuserName   = "superuser-name"
	KeySuperuserSecret = "superuser-secret"

	// A database's name, and per role its user and the Secret of its
	// password (ro only with readOnlyRole).
	KeyDatabase    = "database"
	KeyAdminUser   = "admin-user"
	KeyAdminSecret = "admin-secret"
	KeyRWUser      = "rw-user"
	KeyRWSecret    = "rw-secret"
	KeyROUser      = "ro-user"
	KeyROSecret    = "ro-secret"

	// A database whose roles log in by client certificate: the method, and
	// per role the Secret CNPG issued its certificate into
	// (ClientCertSecret) in place of the password Secret.
	KeyAuthentication  = "authentication"
	KeyAdminCertSecret = "admin-cert-secret"
	KeyRWCertSecret    = "rw-cert-secret"
	KeyROCertSecret    = "ro-cert-secret"
)

// RoleKeys are the keys of one role in a database's ConfigMap, by its
// name within the database: admin, rw, ro (KeyAdminUser is
// RoleKeys("admin")'s user) or a login role of spec.roles (migrator:
// migrator-user, migrator-secret, migrator-cert-secret). The API refuses
// the extra role name "ca", whose secret key would be KeyCASecret.
func RoleKeys(name string) (user, secret, cert string) {
	return name + "-user", name + "-secret", name + "-cert-secret"
}

// SSLMode is the libpq sslmode both ConfigMaps give: verify the server's
// certificate and that it names the host. Host's spelling is on the
// certificate, so it holds.
const SSLMode = "verify-full"
