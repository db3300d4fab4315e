package database

import (
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// cacheLagRecheck is how soon a pass skipped for a cache behind our own
// write is retried. The status write that made it stale starts no pass of
// its own (controller.PrimaryHandler ignores status-only updates), so this
// requeue is what runs the pass once the informer has caught up, usually
// within milliseconds; a cache lookup is all a retry costs.
const cacheLagRecheck = 250 * time.Millisecond

// cacheLag remembers, per PostgresDatabase, the resourceVersions its own
// writes (the finalizer, status) replaced until the informer shows a
// newer one. A pass woken right after a write (by the Secrets and
// ConfigMaps that same pass created) may read the object as it was before
// that write: it would redo the pass on a stale status, and its status
// write — against a superseded resourceVersion — could only come back 409
// Conflict, a request spent on the rate-limited client and a retry with
// backoff. Equality of resourceVersions is all it relies on (they are
// opaque): a cached object at a version we replaced is stale for sure.
type cacheLag struct {
	mu       sync.Mutex
	replaced map[types.NamespacedName][]string
}

// maxReplaced bounds the versions kept per object: a pass writes at most
// twice (the finalizer, then status).
const maxReplaced = 4

// wrote records that a write of key moved it from resourceVersion before
// to after. A client that keeps no versions (before empty or unchanged,
// as in fakes) records nothing.
func (l *cacheLag) wrote(key types.NamespacedName, before, after string) {
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

// behind reports whether the cached resourceVersion rv of key is one our
// own writes replaced. Any other version means the cache caught up (or
// moved past them): the record is dropped.
func (l *cacheLag) behind(key types.NamespacedName, rv string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if slices.Contains(l.replaced[key], rv) {
		return true
	}
	delete(l.replaced, key)
	return false
}

// forget drops key: the object is gone.
func (l *cacheLag) forget(key types.NamespacedName) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.replaced, key)
}
