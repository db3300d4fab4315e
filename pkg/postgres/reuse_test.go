package postgres

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

type fakeConn struct {
	closed atomic.Bool
}

func (f *fakeConn) IsClosed() bool              { return f.closed.Load() }
func (f *fakeConn) Close(context.Context) error { f.closed.Store(true); return nil }

func newIdleSet() *idleSet[*fakeConn] {
	return &idleSet[*fakeConn]{conns: map[string]*idleConn[*fakeConn]{}}
}

// A released connection goes to the next caller for the same key, once.
func TestReleasedConnectionIsTakenOnce(t *testing.T) {
	s := newIdleSet()
	c := &fakeConn{}
	s.put("k", c, time.Hour)
	if got := s.take("other"); got != nil {
		t.Errorf("another target got %p", got)
	}
	if got := s.take("k"); got != c {
		t.Fatalf("take = %p, want the released connection", got)
	}
	if got := s.take("k"); got != nil {
		t.Errorf("taken twice: %p", got)
	}
	if c.IsClosed() {
		t.Error("a taken connection was closed")
	}
}

// At most one waits per key: a second release is closed at once.
func TestSecondReleaseIsClosed(t *testing.T) {
	s := newIdleSet()
	first, second := &fakeConn{}, &fakeConn{}
	s.put("k", first, time.Hour)
	s.put("k", second, time.Hour)
	if got := s.take("k"); got != first {
		t.Errorf("take = %p, want the first", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !second.IsClosed() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !second.IsClosed() {
		t.Error("the second released connection was kept open")
	}
}

// A connection pgx closed after an error is neither kept nor handed out.
func TestClosedConnectionIsNotReused(t *testing.T) {
	s := newIdleSet()
	c := &fakeConn{}
	c.closed.Store(true)
	s.put("k", c, time.Hour)
	if got := s.take("k"); got != nil {
		t.Errorf("a closed connection was handed out")
	}
	open := &fakeConn{}
	s.put("k", open, time.Hour)
	open.closed.Store(true) // the server went away while it waited
	if got := s.take("k"); got != nil {
		t.Errorf("a connection closed while idle was handed out")
	}
}

// The window ends with the connection closed and forgotten.
func TestIdleConnectionClosedWhenWindowEnds(t *testing.T) {
	s := newIdleSet()
	c := &fakeConn{}
	s.put("k", c, time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for !c.IsClosed() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !c.IsClosed() {
		t.Fatal("idle connection not closed after its window")
	}
	if got := s.take("k"); got != nil {
		t.Errorf("a closed connection was handed out")
	}
}

// A rotated password or CA is another key.
func TestReuseKeyCoversCredentials(t *testing.T) {
	base := Target{Namespace: "ns", Cluster: "pg", Database: "postgres", User: "postgres", Password: "a", CACert: []byte("ca1")}
	for name, mutate := range map[string]func(*Target){
		"password": func(t *Target) { t.Password = "b" },
		"CA":       func(t *Target) { t.CACert = []byte("ca2") },
		"database": func(t *Target) { t.Database = "app" },
		"user":     func(t *Target) { t.User = "app_admin" },
	} {
		other := base
		mutate(&other)
		if reuseKey(other) == reuseKey(base) {
			t.Errorf("%s change keeps the key", name)
		}
	}
}
