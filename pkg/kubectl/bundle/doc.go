// Package bundle is `kubectl setpoint report`: the support bundle of one
// PostgresCluster — its objects and the CloudNativePG objects of its
// cluster as the API server has them, its Pods' states, Events, Secrets
// by name and keys only, and the instances' and the operator's logs —
// written as one .tar.gz. Every file passes through the redactor on its
// way into the archive, so that no value of a Secret of the namespace,
// nor a password in a connection string, leaves the cluster in it.
package bundle
