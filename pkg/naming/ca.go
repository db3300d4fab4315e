package naming

// CASecret is the Secret CNPG publishes the cluster's server CA in
// (ca.crt and ca.key). setpoint verifies servers with its ca.crt; no
// application is pointed at it, because it holds the private key.
func CASecret(cluster string) string { return cluster + "-ca" }

// ServerCASecret is setpoint's copy of CASecret's ca.crt alone: the
// Secret the connection ConfigMaps name for clients to verify the server
// with. It holds no private key.
func ServerCASecret(cluster string) string { return cluster + "-server-ca" }

// ClientCASecret is the cluster's client CA, which setpoint makes and
// renews and CNPG signs every client certificate with (the Cluster's
// certificates.clientCASecret). Postgres accepts a client certificate
// only if this CA signed it; no application is pointed at it.
func ClientCASecret(cluster string) string { return cluster + "-client-ca" }

// ReplicationTLSSecret is the streaming_replica client certificate
// setpoint signs with ClientCASecret (the Cluster's
// certificates.replicationTLSSecret), so a new client CA reaches
// replication at once instead of at CNPG's next renewal.
func ReplicationTLSSecret(cluster string) string { return cluster + "-replication-tls" }

// CACertKey is the key of a CA Secret holding the PEM certificate (a
// bundle while a CA is being replaced), CAKeyKey the one holding its key.
const (
	CACertKey = "ca.crt"
	CAKeyKey  = "ca.key"
)
