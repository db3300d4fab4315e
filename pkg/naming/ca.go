package naming

// CASecret is the Secret CNPG publishes the cluster's CA certificate in.
// setpoint verifies servers with it and names it in the connection
// ConfigMaps for clients to do the same.
func CASecret(cluster string) string { return cluster + "-ca" }

// CACertKey is the key of CASecret holding the PEM certificate.
const CACertKey = "ca.crt"
