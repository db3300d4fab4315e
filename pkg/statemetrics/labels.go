package statemetrics

// Label names of the per-object metrics. Not "cluster": Thanos and Mimir
// add an external label of that name to every series, and a metric's own
// "cluster" label would be renamed or would hide it.
const (
	LabelNamespace = "namespace"
	LabelCluster   = "postgrescluster"
	LabelDatabase  = "postgresdatabase"
)

// ClusterLabels are the labels naming one PostgresCluster, in the order of
// every per-cluster metric's label values (namespace, name).
var ClusterLabels = []string{LabelNamespace, LabelCluster}
