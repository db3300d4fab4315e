package cachelag

import (
	"testing"
	"time"
)

func TestRecentWrites(t *testing.T) {
	t.Parallel()
	var r RecentWrites
	t0 := time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)
	if r.Recent("ns/a", t0) {
		t.Fatal("recent before any write")
	}
	r.Wrote("ns/a", t0)
	if !r.Recent("ns/a", t0.Add(time.Second)) || r.Recent("ns/b", t0) {
		t.Error("a write is recent for its key only")
	}
	if r.Recent("ns/a", t0.Add(RecentWriteWindow)) {
		t.Error("still recent after the window: a lost write would never be made again")
	}
	r.Seen("ns/a")
	if r.Recent("ns/a", t0) {
		t.Error("recent after the cache showed it")
	}
	// Old entries go with the next write: the record does not grow with
	// every child ever written.
	r.Wrote("ns/old", t0)
	r.Wrote("ns/new", t0.Add(RecentWriteWindow))
	if len(r.at) != 1 {
		t.Errorf("%d entries kept, want only the new one", len(r.at))
	}
}
