package database

import (
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// tenantsClassHandler wakes the databases of other namespaces on the clusters
// of a class whose tenants changed: a cluster without tenants of its own
// admits by its class's (admission.go).
func (c *Controller) tenantsClassHandler(clusterIndex cache.Indexer) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*pgv1.PostgresClusterClass)
			n, ok2 := newObj.(*pgv1.PostgresClusterClass)
			if !ok1 || !ok2 || apiequality.Semantic.DeepEqual(o.Spec.Tenants, n.Spec.Tenants) {
				return
			}
			for _, key := range informers.ClustersOfClass(clusterIndex, n.Name) {
				for _, db := range informers.ListDatabasesOf(c.databaseIndex, key.Namespace, key.Name) {
					if crossNamespace(db) {
						c.wake(db)
					}
				}
			}
		},
	}
}

// tenantHandler routes events of cluster-side objects of a
// PostgresDatabase of another namespace — labelled, not owner-referenced
// (tenancy.go) — to that PostgresDatabase. Objects without the tenant
// labels are left to the owner-reference routing.
func tenantHandler(enqueue func(workqueue.Key)) cache.ResourceEventHandler {
	route := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		m, ok := obj.(metav1.Object)
		if !ok {
			return
		}
		l := m.GetLabels()
		ns, name := l[ownership.DatabaseNamespaceLabel], l[ownership.DatabaseLabel]
		if ns == "" || name == "" || l[ownership.ManagedByLabel] != ownership.ManagedByValue {
			return
		}
		enqueue(workqueue.Key{Namespace: ns, Name: name})
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    route,
		DeleteFunc: route,
		UpdateFunc: func(_, newObj any) { route(newObj) },
	}
}
