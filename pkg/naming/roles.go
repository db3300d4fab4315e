package naming

import "strings"

// RoleObject is the name of the CNPG DatabaseRole that manages role on
// cluster: "<cluster>.<role>", the role's '_' written '-' (object names
// cannot hold '_'). A Postgres role is unique per server, so the name is
// keyed by cluster and role, not by the object asking for it: two
// PostgresDatabases asking for one role ask for one object, and the API
// server, not a cache, decides who has it. Cluster names have no dots (a
// DNS-1035 label) and role names no '-' or '.', so the mapping is
// injective. setpoint's own roles (the monitor, the certificate group)
// are named the same way.
func RoleObject(cluster, role string) string {
	return cluster + "." + strings.ReplaceAll(role, "_", "-")
}

// ClientCertSecret is the Secret CNPG writes the client certificate of
// DatabaseRole object into (tls.crt, tls.key) when the role asks for one.
func ClientCertSecret(object string) string { return object + "-client-cert" }
