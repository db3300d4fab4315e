package cachelag

import (
	"sync"
	"time"
)

// RecentWriteWindow is how long a child written ahead of its turn counts
// as there while the cache does not show it yet: far longer than a watch
// takes to deliver it, short enough that a write the API server lost is
// made again soon.
const RecentWriteWindow = 5 * time.Second

// RecentWrites remembers the children a controller wrote by name until its
// cache shows them. The pass that runs right after the one that wrote a
// child — queued again by an event that came while it worked — can start
// before the informer has delivered that child, and would write it again:
// a second write and a second check for nothing. The zero value is ready;
// entries older than RecentWriteWindow are forgotten on the next write.
type RecentWrites struct {
	mu sync.Mutex
	at map[string]time.Time
}

// Wrote records key as written at now.
func (r *RecentWrites) Wrote(key string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at == nil {
		r.at = map[string]time.Time{}
	}
	for k, t := range r.at {
		if now.Sub(t) >= RecentWriteWindow {
			delete(r.at, k)
		}
	}
	r.at[key] = now
}

// Recent reports whether key was written within the window before now and
// not yet Seen.
func (r *RecentWrites) Recent(key string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.at[key]
	return ok && now.Sub(t) < RecentWriteWindow
}

// Seen forgets key: the cache shows it.
func (r *RecentWrites) Seen(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.at, key)
}
