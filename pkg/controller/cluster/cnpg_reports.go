package cluster

import (
	"k8s.io/client-go/tools/cache"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// What CNPG reports that completes a new cluster moves its pass ahead of
// other clusters' first passes still queued (workqueue.Urgent), as the
// database controller's passes go ahead for what CNPG reports on a
// database's objects: its Cluster becoming healthy, and the monitor's
// DatabaseRole applied (the pass that checks Postgres as the monitor, and
// so can call the cluster Ready, needs it). Routed at Normal, the pass that
// turns a cluster Ready after CNPG's healthy waited behind every first pass
// queued meanwhile: under the bench's burst of 100 clusters (first passes
// of about 0.7 s on 4 workers, the last ones done 17 s in) CNPG healthy →
// PostgresCluster Ready was 16.7 s p50, and every database of the cluster
// waited with it. CNPG's other steps on the way (Setting up primary, ...)
// stay at Normal: each urgent one would be a pass and a status write
// ahead of the first passes, and a key queued at Normal moves up when the
// healthy report comes, its pass reading the latest status.

// cnpgClusterHandler routes a CNPG Cluster's events to its PostgresCluster:
// the update in which CNPG reports it healthy through progressed (urgent),
// any other event through owned.
func cnpgClusterHandler(owned, progressed cache.ResourceEventHandler) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { owned.OnAdd(obj, false) },
		UpdateFunc: func(oldObj, newObj any) {
			if becameHealthy(oldObj, newObj) {
				progressed.OnUpdate(oldObj, newObj)
				return
			}
			owned.OnUpdate(oldObj, newObj)
		},
		DeleteFunc: owned.OnDelete,
	}
}

// becameHealthy: both are CNPG Clusters, and CNPG reports the new one
// healthy and did not the old one.
func becameHealthy(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*cnpgv1.Cluster)
	n, ok2 := newObj.(*cnpgv1.Cluster)
	return ok1 && ok2 && n.Status.Phase == cnpgHealthy && o.Status.Phase != cnpgHealthy
}
