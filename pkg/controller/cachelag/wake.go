package cachelag

import (
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
)

// CacheLagRecheck is how soon a pass skipped for a cache behind our own
// update is retried when no update of the object arrives first. The status
// write that made the cache stale starts no pass of its own
// (informers.PrimaryHandler ignores status-only updates); Handler wakes the
// skipped pass as soon as the informer shows a newer version, so this
// requeue is only the fallback. A cache lookup is all a retry costs.
const CacheLagRecheck = 250 * time.Millisecond

// Handler wakes a skipped pass the moment the informer delivers a version
// of the object newer than those our updates replaced — typically the
// echo of our own status write, which informers.PrimaryHandler ignores.
// Register it on the informer of the kind e records, whose keys enqueue
// takes.
func (e *Expectations) Handler(enqueue informers.Enqueue) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, newObj any) {
			m, ok := newObj.(metav1.Object) // an update is never a tombstone
			if !ok {
				return
			}
			key := types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()}
			if e.awaited(key, m.GetResourceVersion()) {
				enqueue(informers.KeyOf(m))
			}
		},
	}
}

// awaited reports whether a pass of key was skipped and the cache now
// holds rv, a version our updates did not replace.
func (e *Expectations) awaited(key types.NamespacedName, rv string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.pending[key]
	return x != nil && x.skipped && !slices.Contains(x.replaced, rv)
}
