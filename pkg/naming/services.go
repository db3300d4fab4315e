package naming

// The Services of a cluster, named by CNPG after the Cluster (which has the
// PostgresCluster's name) and after each Pooler (whose Service has the
// Pooler's name).

// RWService reaches the primary: the one every write goes through.
func RWService(cluster string) string { return cluster + "-rw" }

// ROService reaches the replicas only.
func ROService(cluster string) string { return cluster + "-ro" }

// RService reaches any instance, primary or replica.
func RService(cluster string) string { return cluster + "-r" }

// PoolerRW is the read-write PgBouncer Pooler setpoint creates while
// pooling is on, and its Service.
func PoolerRW(cluster string) string { return cluster + "-pooler-rw" }

// PoolerRO is the read-only Pooler and its Service.
func PoolerRO(cluster string) string { return cluster + "-pooler-ro" }

// Poolers are both Poolers, read-write first: what a pass creates,
// deletes, or looks at together. CNPG names each Pooler's PgBouncer
// Deployment after it too.
func Poolers(cluster string) []string { return []string{PoolerRW(cluster), PoolerRO(cluster)} }
