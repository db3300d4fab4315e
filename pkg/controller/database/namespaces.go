package database

import (
	"context"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// newNamespaceInformer caches every Namespace trimmed to its name and
// labels: all the admission of a tenant reads (a cluster's
// tenants.namespaceSelector). It is started by Run, not counted among the
// caches a pass waits for: an install whose RBAC cannot list Namespaces
// (a namespaced one) still runs, and a selector it cannot judge is
// reported, never taken as a yes.
func newNamespaceInformer(kube kubernetes.Interface) cache.SharedIndexInformer {
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return kube.CoreV1().Namespaces().List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return kube.CoreV1().Namespaces().Watch(ctx, o)
		},
	}
	// The client says whether it can stream the initial list (a fake one
	// cannot), as the generated informers do.
	inf := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, kube), &corev1.Namespace{}, 0, cache.Indexers{})
	_ = inf.SetTransform(trimNamespace) // fails only once started
	return inf
}

// trimNamespace keeps what admission and the cache's bookkeeping read.
func trimNamespace(obj any) (any, error) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return obj, nil
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: ns.Name, UID: ns.UID, ResourceVersion: ns.ResourceVersion, Labels: ns.Labels,
		DeletionTimestamp: ns.DeletionTimestamp,
	}}, nil
}

// namespaceHandler wakes the databases of a namespace whose labels
// changed: a cluster's selector may now admit it, or no longer.
func (c *Controller) namespaceHandler() cache.ResourceEventHandler {
	wake := func(obj any) {
		if ns, ok := obj.(*corev1.Namespace); ok {
			objs, _ := c.databaseIndex.ByIndex(cache.NamespaceIndex, ns.Name) // only an unknown index fails
			for _, o := range objs {
				if db, ok := o.(*pgv1.PostgresDatabase); ok && crossNamespace(db) {
					c.wake(db)
				}
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: wake,
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*corev1.Namespace)
			n, ok2 := newObj.(*corev1.Namespace)
			if ok1 && ok2 && !maps.Equal(o.Labels, n.Labels) {
				wake(newObj)
			}
		},
	}
}
