package database

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

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
