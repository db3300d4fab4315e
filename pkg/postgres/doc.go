// Package postgres connects the operator to the Postgres servers CNPG runs:
// over TLS verified against the cluster's CA (Secret <cluster>-ca, key
// ca.crt) with the read-write service name as server name, every call under
// a context with a timeout. Outside a Kubernetes cluster (the sandbox, the
// tests) a host map redirects service addresses to local ones while the TLS
// server name stays the service name.
package postgres
