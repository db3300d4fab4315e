package informers

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Enqueue adds a key to a controller's queue.
type Enqueue func(workqueue.Key)

// metaOf unwraps a tombstone and returns the object's metadata.
func metaOf(obj any) (metav1.Object, bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, ok := obj.(metav1.Object)
	return m, ok
}

// KeyOf is the queue key of an object.
func KeyOf(m metav1.Object) workqueue.Key {
	return workqueue.Key{Namespace: m.GetNamespace(), Name: m.GetName()}
}

// PrimaryHandler routes events of a controller's own kind to its queue.
// An update that only touched status (same generation, same metadata the
// controller acts on) does not start a pass: the controller wrote it. A
// resync (same resourceVersion) does, so drift is still corrected; it is
// queued by resync, which puts it behind every change (Queue.AddLater).
//
// ownFinalizer is the controller's finalizer: an update that only adds it
// is the controller's own first write, made by a pass that goes on with
// the object it got back, and starts no pass of its own.
func PrimaryHandler(enqueue, resync Enqueue, ownFinalizer string) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if m, ok := metaOf(obj); ok {
				enqueue(KeyOf(m))
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := metaOf(oldObj)
			n, ok2 := metaOf(newObj)
			switch {
			case !ok1 || !ok2:
			case o.GetResourceVersion() == n.GetResourceVersion():
				resync(KeyOf(n))
			case NeedsPass(o, n) && !onlyAddedFinalizer(o, n, ownFinalizer):
				enqueue(KeyOf(n))
			}
		},
		DeleteFunc: func(obj any) {
			if m, ok := metaOf(obj); ok {
				enqueue(KeyOf(m))
			}
		},
	}
}

// NeedsPass reports whether an update of an object should start a pass of
// its own controller.
func NeedsPass(o, n metav1.Object) bool {
	if o.GetResourceVersion() == n.GetResourceVersion() {
		return true // periodic resync
	}
	return !slices.Equal(o.GetFinalizers(), n.GetFinalizers()) || passInputChanged(o, n)
}

// passInputChanged: what a pass reads of an object besides its status and
// finalizers changed.
func passInputChanged(o, n metav1.Object) bool {
	return o.GetGeneration() != n.GetGeneration() ||
		!o.GetDeletionTimestamp().Equal(n.GetDeletionTimestamp()) ||
		!maps.Equal(o.GetLabels(), n.GetLabels()) ||
		!maps.Equal(o.GetAnnotations(), n.GetAnnotations())
}

// onlyAddedFinalizer: n is o with finalizer f appended, and nothing else a
// pass reads changed.
func onlyAddedFinalizer(o, n metav1.Object, f string) bool {
	return f != "" && slices.Equal(append(slices.Clone(o.GetFinalizers()), f), n.GetFinalizers()) && !passInputChanged(o, n)
}

// OwnerUID returns the UID of the cached owner named ns/name, if any.
type OwnerUID func(namespace, name string) (types.UID, bool)

// OwnerHandler routes every update and deletion of a child to its
// controlling owner of kind ownerKind — but only when the cached owner has
// the UID the reference names, so a child left behind by a deleted owner
// does not wake a new object that happens to reuse the name.
//
// The creation of a child wakes nobody: a child controlled by the owner
// is created by the owner's own pass, which goes on with the object the
// create returned (a wake would be a pass with nothing to do, several per
// object at scale: two Secrets, a ConfigMap, a CNPG Database). The
// children listed when the informer starts are covered by every owner's
// own initial pass. What happens to a child later (CNPG reporting on it,
// someone editing or deleting it) is an update or a deletion.
func OwnerHandler(ownerKind string, lookup OwnerUID, enqueue Enqueue) cache.ResourceEventHandler {
	route := func(obj any) {
		m, ok := metaOf(obj)
		if !ok {
			return
		}
		ref := metav1.GetControllerOfNoCopy(m)
		if ref == nil || ref.Kind != ownerKind {
			return
		}
		if uid, found := lookup(m.GetNamespace(), ref.Name); found && uid == ref.UID {
			enqueue(workqueue.Key{Namespace: m.GetNamespace(), Name: ref.Name})
		}
	}
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := metaOf(oldObj)
			n, ok2 := metaOf(newObj)
			// The owner's own resync covers periodic drift checks.
			if ok1 && ok2 && o.GetResourceVersion() != n.GetResourceVersion() {
				route(newObj)
			}
		},
		// A deleted child may have been left by a previous owner of the
		// same name (other UID) and stood in the way of the current one:
		// wake the name whatever the UID.
		DeleteFunc: func(obj any) {
			m, ok := metaOf(obj)
			if !ok {
				return
			}
			if ref := metav1.GetControllerOfNoCopy(m); ref != nil && ref.Kind == ownerKind {
				if _, found := lookup(m.GetNamespace(), ref.Name); found {
					enqueue(workqueue.Key{Namespace: m.GetNamespace(), Name: ref.Name})
				}
			}
		},
	}
}

// MappedHandler routes changes of one kind to keys of another, computed by
// keys (for example a PostgresCluster to the PostgresDatabases on it).
// changed filters updates; nil means every real update.
func MappedHandler(keys func(obj any) []workqueue.Key, changed func(oldObj, newObj any) bool, enqueue Enqueue) cache.ResourceEventHandler {
	route := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		for _, k := range keys(obj) {
			enqueue(k)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: route,
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := metaOf(oldObj)
			n, ok2 := metaOf(newObj)
			if !ok1 || !ok2 || o.GetResourceVersion() == n.GetResourceVersion() {
				return
			}
			if changed == nil || changed(oldObj, newObj) {
				route(newObj)
			}
		},
		DeleteFunc: route,
	}
}
