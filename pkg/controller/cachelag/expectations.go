package cachelag

import (
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Expectations are a controller's own writes of one kind of object that
// its informer's cache may not show yet, by namespace/name, and the answer
// to "has the cache caught up with what I wrote?" (CaughtUp). They are
// Kubernetes' expectations (the ReplicaSet controller's
// ControllerExpectations) for setpoint's two kinds of write:
//
//   - an update of an object the pass reads from the cache (a finalizer,
//     status: Updated): the cache has caught up once it holds a
//     resourceVersion the write did not replace. Equality is all this
//     relies on (resourceVersions are opaque), and a cached copy at a
//     version we replaced is stale for certain, so no timeout: a relist
//     brings the newer one. A pass skipped on it is woken by Handler.
//   - a creation (Created): caught up once the cache holds the object at
//     all, or once CreationWindow has passed, so that a write the API
//     server lost is made again, as expectations in Kubernetes expire.
//
// One value serves one kind of object (the keys carry no kind), as one
// ControllerExpectations serves one kind of controller. No record means
// caught up: a restart forgets every expectation and the first pass trusts
// the cache, as a new controller does. The zero value is ready to use.
type Expectations struct {
	mu      sync.Mutex
	pending map[types.NamespacedName]*expected
}

// expected is what one object's cache copy must show before a pass may
// trust it.
type expected struct {
	// replaced are the resourceVersions our updates replaced, the last
	// maxReplaced of them.
	replaced []string
	// created is when we created the object; zero when no creation waits.
	created time.Time
	// skipped: a pass found the cache at a replaced version and waits for
	// Handler to wake it.
	skipped bool
}

func (x *expected) empty() bool { return len(x.replaced) == 0 && x.created.IsZero() }

// maxReplaced bounds the versions kept per object: a pass updates its
// object at most twice (the finalizer, then status).
const maxReplaced = 4

// CreationWindow is how long a created object counts as there while the
// cache does not show it: far longer than a watch takes to deliver it,
// short enough that a write the API server lost is made again soon.
const CreationWindow = 5 * time.Second

// Updated records that an update of key moved it from resourceVersion
// before to after. A client that keeps no versions (before empty or
// unchanged, as in fakes) records nothing: nothing could tell the cache's
// copy from ours.
func (e *Expectations) Updated(key types.NamespacedName, before, after string) {
	if before == "" || before == after {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.record(key)
	x.replaced = append(x.replaced, before)
	if len(x.replaced) > maxReplaced {
		x.replaced = x.replaced[len(x.replaced)-maxReplaced:]
	}
}

// Created records that key was created at now. Creations older than
// CreationWindow are dropped here, so the record does not grow with every
// object ever created that no pass looked at again.
func (e *Expectations) Created(key types.NamespacedName, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, x := range e.pending {
		if !x.created.IsZero() && now.Sub(x.created) >= CreationWindow {
			x.created = time.Time{}
			if x.empty() {
				delete(e.pending, k)
			}
		}
	}
	e.record(key).created = now
}

// CaughtUp reports whether the cache, showing seen of key at now, has
// caught up with our writes of it; the expectations it meets are dropped.
// A false answer for an update marks the pass skipped, so that Handler
// wakes it when the informer delivers a newer version.
func (e *Expectations) CaughtUp(key types.NamespacedName, seen Seen, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.pending[key]
	if x == nil {
		return true
	}
	if !x.created.IsZero() && (seen.present || now.Sub(x.created) >= CreationWindow) {
		x.created = time.Time{}
	}
	if seen.present && slices.Contains(x.replaced, seen.version) {
		x.skipped = true
		return false
	}
	x.replaced, x.skipped = nil, false
	if x.empty() {
		delete(e.pending, key)
		return true
	}
	return false // a creation within its window the cache does not show
}

// Forget drops key's expectations: the object is gone.
func (e *Expectations) Forget(key types.NamespacedName) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.pending, key)
}

// record is key's expectations, made if there are none; e.mu is held.
func (e *Expectations) record(key types.NamespacedName) *expected {
	if e.pending == nil {
		e.pending = map[types.NamespacedName]*expected{}
	}
	x := e.pending[key]
	if x == nil {
		x = &expected{}
		e.pending[key] = x
	}
	return x
}
