package bundle

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// kind is one custom resource the bundle collects, and how an object of
// it is known to belong to the cluster.
type kind struct {
	// dir is the folder of the archive its objects go in.
	dir string
	gvr schema.GroupVersionResource
	// byClusterRef: objects whose spec.cluster.name (CNPG's kinds) or
	// spec.clusterRef.name (PostgresDatabase) is the cluster's name;
	// otherwise the object named for the cluster alone.
	byClusterRef bool
	// name is the object's name for a kind selected by name.
	name func(cluster string) string
}

var (
	pgGroup     = "postgres.setpoint.dev"
	cnpgGroup   = "postgresql.cnpg.io"
	barmanGroup = "barmancloud.cnpg.io"
)

// kinds are the custom resources of a bundle, in the order of the
// archive's README: setpoint's, then CloudNativePG's and the barman-cloud
// plugin's that setpoint writes for a cluster, then what CNPG makes of
// them (Backups of the ScheduledBackups).
var kinds = []kind{
	{dir: "postgresclusters", gvr: schema.GroupVersionResource{Group: pgGroup, Version: "v1alpha1", Resource: "postgresclusters"}, name: same},
	{dir: "postgresdatabases", gvr: schema.GroupVersionResource{Group: pgGroup, Version: "v1alpha1", Resource: "postgresdatabases"}, byClusterRef: true},
	{dir: "cnpg/clusters", gvr: schema.GroupVersionResource{Group: cnpgGroup, Version: "v1", Resource: "clusters"}, name: same},
	{dir: "cnpg/poolers", gvr: schema.GroupVersionResource{Group: cnpgGroup, Version: "v1", Resource: "poolers"}, byClusterRef: true},
	{dir: "cnpg/databases", gvr: schema.GroupVersionResource{Group: cnpgGroup, Version: "v1", Resource: "databases"}, byClusterRef: true},
	{dir: "cnpg/databaseroles", gvr: schema.GroupVersionResource{Group: cnpgGroup, Version: "v1", Resource: "databaseroles"}, byClusterRef: true},
	{dir: "cnpg/scheduledbackups", gvr: schema.GroupVersionResource{Group: cnpgGroup, Version: "v1", Resource: "scheduledbackups"}, byClusterRef: true},
	{dir: "cnpg/backups", gvr: schema.GroupVersionResource{Group: cnpgGroup, Version: "v1", Resource: "backups"}, byClusterRef: true},
	{dir: "barmancloud/objectstores", gvr: schema.GroupVersionResource{Group: barmanGroup, Version: "v1", Resource: "objectstores"}, name: naming.ObjectStore},
}

func same(cluster string) string { return cluster }
