package ownership

import "k8s.io/apimachinery/pkg/labels"

// Labels setpoint puts on the Secrets and ConfigMaps it creates. The core
// informers select on ManagedByLabel so that only our own objects are
// cached: a cluster-wide Secret cache is a classic operator memory killer.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "setpoint"
	// ClusterLabel names the PostgresCluster an object belongs to.
	ClusterLabel = "postgres.setpoint.dev/cluster"
	// DatabaseLabel names the PostgresDatabase an object belongs to.
	DatabaseLabel = "postgres.setpoint.dev/database"
	// ReloadLabel makes CNPG pick up a changed role password at once.
	ReloadLabel = "cnpg.io/reload"
)

// ManagedSelector selects the objects setpoint manages.
func ManagedSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{ManagedByLabel: ManagedByValue})
}
