package database

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// staleSince remembers, per PostgresDatabase, when a pass first left its
// stored status behind (a deferred progress write, status_defer.go). The
// time is set once and kept until status is written (or found current) or
// the object goes away, so later passes, however many events wake them,
// cannot push the write further out: the stored status is at most
// progressReportDelay behind. It lives in memory only: after a restart the
// first deferring pass starts a new bound, which delays a progress write
// by at most one more bound and loses nothing (a claim the cluster
// reads from the status, and every failure, are never deferred).
type staleSince struct {
	mu    sync.Mutex
	since map[types.NamespacedName]staleMark
}

// staleMark is keyed by name but holds the UID: an object recreated under
// the same name starts afresh.
type staleMark struct {
	uid types.UID
	at  time.Time
}

// left is how much of the bound the object named key (with uid) still has
// at t, marking it stale from t if it was not yet.
func (s *staleSince) left(key types.NamespacedName, uid types.UID, t time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.since[key]
	if !ok || m.uid != uid {
		if s.since == nil {
			s.since = map[types.NamespacedName]staleMark{}
		}
		m = staleMark{uid: uid, at: t}
		s.since[key] = m
	}
	return progressReportDelay - t.Sub(m.at)
}

// clear forgets key: its status was written, is current, or it is gone.
func (s *staleSince) clear(key types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.since, key)
}
