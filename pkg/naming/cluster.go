package naming

import "strings"

// Children of a PostgresCluster that other packages than the cluster
// controller find by name (the kubectl plugin, the tests). Names only the
// cluster controller uses stay in that package.

// SuperuserSecret is the generated Secret of the postgres superuser, used
// while superuser access is on and no external Secret is named.
func SuperuserSecret(cluster string) string { return cluster + "-superuser" }

// ObjectStore is the barman-cloud ObjectStore the cluster archives to and
// backs up into.
func ObjectStore(cluster string) string { return cluster + objectStoreSuffix }

// ObjectStoreCluster is the cluster an ObjectStore named by ObjectStore is
// for: how a store found by listing is traced back to its cluster.
func ObjectStoreCluster(store string) string { return strings.TrimSuffix(store, objectStoreSuffix) }

const objectStoreSuffix = "-backup"

// MonitorSecret is the generated Secret of the cluster's monitoring role.
func MonitorSecret(cluster string) string { return cluster + "-monitor" }
