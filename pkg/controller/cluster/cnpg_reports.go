package cluster

import (
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/cache"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// What CNPG reports on a cluster's own objects moves a waiting pass on:
// its Cluster becoming healthy, its monitor's DatabaseRole applied. Those
// passes go ahead of other clusters' first passes still queued
// (workqueue.Urgent), as the database controller's do for what CNPG
// reports on a database's objects. Routed at Normal, the pass that turns a
// cluster Ready after CNPG's healthy waited behind every first pass queued
// meanwhile: under the bench's burst of 100 clusters (first passes of
// about 0.7 s each on 4 workers) CNPG healthy → PostgresCluster Ready was
// 10–16 s p50, and every database of the cluster waited with it. A pass
// woken this way is short (it reads what CNPG said and writes status at
// most once), so the first passes it goes ahead of lose little.

// cnpgClusterHandler routes a CNPG Cluster's events to its PostgresCluster:
// an update in which CNPG's status moved through progressed (urgent), any
// other event through owned.
func cnpgClusterHandler(owned, progressed cache.ResourceEventHandler) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { owned.OnAdd(obj, false) },
		UpdateFunc: func(oldObj, newObj any) {
			if cnpgStatusMoved(oldObj, newObj) {
				progressed.OnUpdate(oldObj, newObj)
				return
			}
			owned.OnUpdate(oldObj, newObj)
		},
		DeleteFunc: owned.OnDelete,
	}
}

// cnpgStatusMoved: both are CNPG Clusters and their status differs.
func cnpgStatusMoved(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*cnpgv1.Cluster)
	n, ok2 := newObj.(*cnpgv1.Cluster)
	return ok1 && ok2 && !apiequality.Semantic.DeepEqual(o.Status, n.Status)
}
