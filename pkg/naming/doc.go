// Package naming is the one place the names of setpoint's and CNPG's
// objects around a cluster are spelled: the Services clients connect to and
// their host names, the CA Secret, the children that more than one package
// finds by name, a database's children and roles, setpoint's own roles on
// every cluster (the monitor and the certificate group), and the keys of the
// connection data setpoint publishes in ConfigMaps.
//
// The controllers that create these objects, the collector, and the kubectl
// plugin that finds them again must agree letter for letter; a name spelled
// in two places drifts. The package depends on the standard library only,
// so that any package may import it.
package naming
