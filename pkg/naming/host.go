package naming

// Host is the in-cluster DNS name of Service service in namespace: what
// the connection ConfigMaps give clients, and the TLS server name setpoint
// verifies. CNPG's server certificate carries this spelling of its
// Services (and setpoint asks it to carry the poolers'), so clients with
// sslmode verify-full accept it.
func Host(namespace, service string) string { return service + "." + namespace + ".svc" }
