package database

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// unreportedDrift remembers, per PostgresDatabase, the privileges a pass
// revoked as drift until a stored status shows them. Revoking is a
// one-shot observation: the pass that revokes is the only one that sees
// the hand-made grant, and its status write can be lost (a conflict with
// a newer resourceVersion, an API error). The next pass then finds
// nothing to revoke and, without this memory, would keep the condition
// it read, so the drift would be reported in the Event alone. With it,
// any later pass of the same object and generation reports the drift
// until the stored condition carries it.
//
// In memory only: a restart between the lost write and the next pass
// loses the condition's report, not the revoke or its Event.
type unreportedDrift struct {
	mu      sync.Mutex
	revoked map[types.NamespacedName]driftMark
}

// driftMark is keyed by name but holds the UID and the generation: a
// recreated object, or a new spec (whose pass reports its own plan),
// starts afresh.
type driftMark struct {
	uid        types.UID
	generation int64
	// revoked names the privileges; message is the whole condition
	// message that reported them.
	revoked, message string
}

// remember records what a pass of the object (uid, generation) revoked,
// and the condition message that reports it.
func (d *unreportedDrift) remember(key types.NamespacedName, uid types.UID, generation int64, revoked, message string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.revoked == nil {
		d.revoked = map[types.NamespacedName]driftMark{}
	}
	d.revoked[key] = driftMark{uid: uid, generation: generation, revoked: revoked, message: message}
}

// pending is what was revoked from the object (uid, generation) and not
// yet seen in its stored status.
func (d *unreportedDrift) pending(key types.NamespacedName, uid types.UID, generation int64) (driftMark, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.revoked[key]
	if !ok || m.uid != uid || m.generation != generation {
		return driftMark{}, false
	}
	return m, true
}

// clear forgets key: its stored status reports the drift, or it is gone.
func (d *unreportedDrift) clear(key types.NamespacedName) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.revoked, key)
}
