package cachelag

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

var (
	t0   = time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)
	shop = types.NamespacedName{Namespace: "ns", Name: "shop"}
)

// noRecords fails t if e keeps any record: what is met or moot must not
// pile up in a controller that runs for months.
func noRecords(t *testing.T, e *Expectations, when string) {
	t.Helper()
	if n := len(e.pending); n != 0 {
		t.Errorf("%d records kept %s", n, when)
	}
}

// No record means caught up: a new controller, or one just restarted,
// trusts its cache.
func TestNothingExpectedIsCaughtUp(t *testing.T) {
	t.Parallel()
	var e Expectations
	for _, seen := range []Seen{Absent, At(""), At("5")} {
		if !e.CaughtUp(shop, seen, t0) {
			t.Errorf("%+v: not caught up with nothing written", seen)
		}
	}
}

// Fakes and clients that keep no resourceVersion never skip a pass: an
// update that changed no version records nothing.
func TestUpdateNeedsVersions(t *testing.T) {
	t.Parallel()
	var e Expectations
	e.Updated(shop, "", "")
	e.Updated(shop, "5", "5")
	if !e.CaughtUp(shop, At(""), t0) || !e.CaughtUp(shop, At("5"), t0) {
		t.Error("an update that changed no version marks the cache behind")
	}
	noRecords(t, &e, "for writes without versions")
}

// The cache is behind while it shows a version our updates replaced, for
// as long as it does (no timeout: that copy is stale for certain), and
// caught up at any other version, which drops the record.
func TestUpdateCaughtUpAtANewerVersion(t *testing.T) {
	t.Parallel()
	var e Expectations
	e.Updated(shop, "5", "6")
	e.Updated(shop, "6", "7")
	if e.CaughtUp(shop, At("5"), t0) || e.CaughtUp(shop, At("6"), t0.Add(time.Hour)) {
		t.Error("a version our updates replaced counts as caught up")
	}
	if !e.CaughtUp(shop, At("7"), t0) {
		t.Error("the version our last update made is not caught up")
	}
	if !e.CaughtUp(shop, At("5"), t0) {
		t.Error("record kept after the cache showed a newer version")
	}
	noRecords(t, &e, "after catching up")
}

// Only the last few replaced versions are kept: a pass updates its object
// at most twice.
func TestUpdateKeepsTheLastVersions(t *testing.T) {
	t.Parallel()
	var e Expectations
	for v := 1; v <= maxReplaced+1; v++ {
		e.Updated(shop, string(rune('0'+v)), string(rune('0'+v+1)))
	}
	if got := len(e.pending[shop].replaced); got != maxReplaced {
		t.Errorf("%d versions kept, want %d", got, maxReplaced)
	}
	if e.CaughtUp(shop, At("2"), t0) {
		t.Error("a kept replaced version counts as caught up")
	}
}

// A creation waits until the cache shows the object, or until the window
// has passed: a write the API server lost is made again.
func TestCreationCaughtUp(t *testing.T) {
	t.Parallel()
	other := types.NamespacedName{Namespace: "ns", Name: "other"}
	cases := []struct {
		name string
		key  types.NamespacedName
		seen Seen
		at   time.Duration
		want bool
	}{
		{"absent within the window", shop, Absent, time.Second, false},
		{"absent as the window ends", shop, Absent, CreationWindow, true},
		{"shown by the cache", shop, At("1"), time.Second, true},
		{"shown by the cache without a version (fakes)", shop, At(""), 0, true},
		{"another object", other, Absent, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var e Expectations
			e.Created(shop, t0)
			if got := e.CaughtUp(tc.key, tc.seen, t0.Add(tc.at)); got != tc.want {
				t.Errorf("caught up = %v, want %v", got, tc.want)
			}
		})
	}
}

// Once the cache has shown a created object, or the window has passed, the
// expectation is gone: a later pass that finds the object absent (deleted)
// does not wait for it.
func TestCreationMetOnce(t *testing.T) {
	t.Parallel()
	var e Expectations
	e.Created(shop, t0)
	if !e.CaughtUp(shop, At("1"), t0) {
		t.Fatal("not caught up with the object in the cache")
	}
	if !e.CaughtUp(shop, Absent, t0) {
		t.Error("a creation met once is awaited again")
	}
	e.Created(shop, t0)
	e.CaughtUp(shop, Absent, t0.Add(CreationWindow))
	noRecords(t, &e, "after the window")
}

// Creations older than the window go with the next creation: the record
// does not grow with every object created that no pass looked at again.
// Updates awaited on the same key stay.
func TestOldCreationsDropped(t *testing.T) {
	t.Parallel()
	var e Expectations
	old := types.NamespacedName{Namespace: "ns", Name: "old"}
	both := types.NamespacedName{Namespace: "ns", Name: "both"}
	e.Created(old, t0)
	e.Created(both, t0)
	e.Updated(both, "1", "2")
	e.Created(shop, t0.Add(CreationWindow))
	if _, kept := e.pending[old]; kept {
		t.Error("an expired creation kept")
	}
	if x := e.pending[both]; x == nil || !x.created.IsZero() || len(x.replaced) != 1 {
		t.Errorf("record of a key with an update awaited = %+v, want its update only", x)
	}
}

// Forget drops everything awaited of an object: it is gone.
func TestForget(t *testing.T) {
	t.Parallel()
	var e Expectations
	e.Created(shop, t0)
	e.Updated(shop, "1", "2")
	e.Forget(shop)
	if !e.CaughtUp(shop, At("1"), t0) || !e.CaughtUp(shop, Absent, t0) {
		t.Error("expectations awaited after Forget")
	}
}
