package naming

// The Service Binding for Kubernetes specification (servicebinding.io,
// 1.0): each database role gets a Secret of type servicebinding.io/<type>
// whose entries, projected as files into $SERVICE_BINDING_ROOT/<binding>,
// Spring Cloud Bindings, Quarkus' kubernetes-service-binding and any
// libpq program read. The entries are an API, as the ConfigMap keys are:
// added, never renamed.
const (
	// BindingType is the binding's abstract classification: its `type`
	// entry, and the Secret type is BindingSecretType.
	BindingType       = "postgresql"
	BindingSecretType = "servicebinding.io/" + BindingType
	// BindingProvider is the `provider` entry.
	BindingProvider = "setpoint"

	// The specification's well-known entries (type and provider
	// recommended; host a DNS name, port a port number, uri an RFC 3986
	// URI, username and password strings).
	BindingKeyType     = "type"
	BindingKeyProvider = "provider"
	BindingKeyHost     = "host"
	BindingKeyPort     = "port"
	BindingKeyUsername = "username"
	BindingKeyPassword = "password"
	BindingKeyURI      = "uri"

	// The entries of the postgresql type the Spring and Quarkus readers
	// know: the database, a JDBC URL they take as it is, and libpq's
	// sslmode and sslrootcert, which both take as the name of a file in
	// the binding's directory.
	BindingKeyDatabase    = "database"
	BindingKeyJDBCURL     = "jdbc-url"
	BindingKeySSLMode     = "sslmode"
	BindingKeySSLRootCert = "sslrootcert"

	// BindingKeyPoolerURI is uri through the read-write pooler, while the
	// cluster pools.
	BindingKeyPoolerURI = "pooler-uri"

	// A certificate role's client certificate and key (PEM), copied from
	// the Secret CloudNativePG issued them into (ClientCertSecret), and
	// the entries naming those files for libpq (sslcert, sslkey).
	BindingKeySSLCert = "sslcert"
	BindingKeySSLKey  = "sslkey"
)

// notSecretKeys are Secret keys whose values are names, not secrets: a
// role's user name (replacing it everywhere would hide which role a log
// line is about), and a binding Secret's entries beside its credentials,
// which the connection ConfigMap publishes too (host, database, sslmode,
// ...) or which are constants (type, provider).
var notSecretKeys = map[string]bool{"username": true, "user": true,
	BindingKeyType: true, BindingKeyProvider: true, BindingKeyHost: true, BindingKeyPort: true,
	BindingKeyDatabase: true, BindingKeySSLMode: true, BindingKeySSLRootCert: true,
	BindingKeySSLCert: true, BindingKeySSLKey: true}

// NotSecretKey reports whether a Secret's key holds a name rather than a
// secret: what the support bundle leaves in place, where it replaces
// every other Secret value.
func NotSecretKey(key string) bool { return notSecretKeys[key] }
