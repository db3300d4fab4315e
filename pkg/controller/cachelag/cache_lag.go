package cachelag

import (
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
)

// CacheLagRecheck is how soon a pass skipped for a cache behind our own
// write is retried when no update of the object arrives first. The status
// write that made the cache stale starts no pass of its own
// (informers.PrimaryHandler ignores status-only updates); CacheLag.Handler wakes the
// skipped pass as soon as the informer shows a newer version, so this
// requeue is only the fallback. A cache lookup is all a retry costs.
const CacheLagRecheck = 250 * time.Millisecond

// CacheLag remembers, per object, the resourceVersions its controller's own
// writes (a finalizer, status) replaced until the informer shows a newer
// one. A pass woken right after a write (by the objects that same pass
// created or applied) may read the object as it was before that write: it
// would redo the pass on a stale status, and its status write — against a
// superseded resourceVersion — could only come back 409 Conflict, a
// request spent on the rate-limited client and a retry with backoff.
// Equality of resourceVersions is all it relies on (they are opaque): a
// cached object at a version we replaced is stale for sure.
type CacheLag struct {
	mu       sync.Mutex
	replaced map[types.NamespacedName][]string
	skipped  map[types.NamespacedName]bool // a pass waits for the cache
}

// maxReplaced bounds the versions kept per object: a pass writes at most
// twice (the finalizer, then status).
const maxReplaced = 4

// Wrote records that a write of key moved it from resourceVersion before
// to after. A client that keeps no versions (before empty or unchanged,
// as in fakes) records nothing.
func (l *CacheLag) Wrote(key types.NamespacedName, before, after string) {
	if before == "" || before == after {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.replaced == nil {
		l.replaced = map[types.NamespacedName][]string{}
	}
	rvs := append(l.replaced[key], before)
	if len(rvs) > maxReplaced {
		rvs = rvs[len(rvs)-maxReplaced:]
	}
	l.replaced[key] = rvs
}

// Behind reports whether the cached resourceVersion rv of key is one our
// own writes replaced; the caller then skips its pass, and Handler wakes
// it when the cache catches up. Any other version means the cache caught
// up (or moved past them): the record is dropped.
func (l *CacheLag) Behind(key types.NamespacedName, rv string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if slices.Contains(l.replaced[key], rv) {
		if l.skipped == nil {
			l.skipped = map[types.NamespacedName]bool{}
		}
		l.skipped[key] = true
		return true
	}
	delete(l.replaced, key)
	delete(l.skipped, key)
	return false
}

// caughtUp reports whether a pass of key was skipped and the cache now
// holds rv, a version our writes did not replace.
func (l *CacheLag) caughtUp(key types.NamespacedName, rv string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.skipped[key] && !slices.Contains(l.replaced[key], rv)
}

// Forget drops key: the object is gone.
func (l *CacheLag) Forget(key types.NamespacedName) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.replaced, key)
	delete(l.skipped, key)
}

// Handler wakes a skipped pass the moment the informer delivers a version
// of the object newer than those our writes replaced — typically the echo
// of our own status write, which informers.PrimaryHandler ignores.
func (l *CacheLag) Handler(enqueue informers.Enqueue) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, newObj any) {
			m, ok := newObj.(metav1.Object) // an update is never a tombstone
			if !ok {
				return
			}
			key := types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()}
			if l.caughtUp(key, m.GetResourceVersion()) {
				enqueue(informers.KeyOf(m))
			}
		},
	}
}
