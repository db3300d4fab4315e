package cluster

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// What CNPG reports that completes a new cluster moves its pass ahead of
// other clusters' first passes still queued (workqueue.Urgent), as the
// database controller's passes go ahead for what CNPG reports on a
// database's objects: its Cluster healthy once the monitor's DatabaseRole
// is applied, or that role applied (the pass that can call the cluster
// Ready checks Postgres as the monitor). Routed at Normal, the pass that
// turns a cluster Ready after CNPG's healthy waited behind every first
// pass queued meanwhile: under the bench's burst of 100 clusters (first
// passes of about 0.7 s on 4 workers, the last ones done 17 s in) CNPG
// healthy → PostgresCluster Ready was 16.7 s p50, and every database of
// the cluster waited with it.
//
// Anything else stays at Normal: CNPG's steps on the way (Setting up
// primary, ...), and healthy while the monitor role is still to be applied
// (CNPG applies roles once the instance is up). Urgent, each would be a
// pass ahead of the first passes that can only write a waiting status
// (PostgresNotChecked), and the pass after it a second one; a key queued
// at Normal moves up when the completing report comes, its pass reading
// the latest state.

// cnpgClusterHandler routes a CNPG Cluster's events to its PostgresCluster:
// the update in which CNPG reports it healthy, when monitorApplied says
// the cluster's monitor role is applied too, through progressed (urgent),
// any other event through owned.
func cnpgClusterHandler(owned, progressed cache.ResourceEventHandler, monitorApplied func(namespace, cluster string) bool) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { owned.OnAdd(obj, false) },
		UpdateFunc: func(oldObj, newObj any) {
			if n, ok := becameHealthy(oldObj, newObj); ok {
				if ref := metav1.GetControllerOfNoCopy(n); ref != nil && monitorApplied(n.Namespace, ref.Name) {
					progressed.OnUpdate(oldObj, newObj)
					return
				}
			}
			owned.OnUpdate(oldObj, newObj)
		},
		DeleteFunc: owned.OnDelete,
	}
}

// becameHealthy returns the new CNPG Cluster when both are CNPG Clusters,
// and CNPG reports the new one healthy and did not the old one.
func becameHealthy(oldObj, newObj any) (*cnpgv1.Cluster, bool) {
	o, ok1 := oldObj.(*cnpgv1.Cluster)
	n, ok2 := newObj.(*cnpgv1.Cluster)
	return n, ok1 && ok2 && n.Status.Phase == cnpgHealthy && o.Status.Phase != cnpgHealthy
}

// monitorApplied reports whether the cache shows CNPG has applied the
// current generation of cluster's monitor DatabaseRole: a routing hint
// only, the pass judges the role itself (usableMonitor).
func (c *Controller) monitorApplied(namespace, cluster string) bool {
	r, err := c.databaseRoles.DatabaseRoles(namespace).Get(naming.MonitorRoleObject(cluster))
	return err == nil && r.Status.ObservedGeneration == r.Generation && ptr.Deref(r.Status.Applied, false)
}
