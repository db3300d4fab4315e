package workqueue

import (
	"strings"
	"testing"
)

func pkey(n string) Key { return Key{Namespace: "ns", Name: n} }

// get takes the next key and marks it done.
func get(t *testing.T, q *Queue) Key {
	t.Helper()
	k, shutdown := q.q.Get()
	if shutdown {
		t.Fatal("queue shut down")
	}
	q.q.Done(k)
	return k
}

// takeN hands out n keys and returns their names in order.
func takeN(t *testing.T, q *Queue, n int) string {
	t.Helper()
	var got []string
	for range n {
		got = append(got, get(t, q).Name)
	}
	return strings.Join(got, " ")
}

// Keys woken urgently are handed out before those queued before them, in
// their own order; a key already waiting moves up, once.
func TestUrgentKeysFirst(t *testing.T) {
	q := New(Options{Name: "test-priority"})
	defer q.ShutDown()
	for _, n := range []string{"a", "b", "c"} {
		q.Add(pkey(n))
	}
	q.AddUrgent(pkey("c")) // waiting: moves up
	q.AddUrgent(pkey("d")) // new
	q.Add(pkey("d"))       // added again the ordinary way: stays urgent
	if n := q.Len(); n != 4 {
		t.Fatalf("Len %d, want 4 (a key counts once)", n)
	}
	if got, want := takeN(t, q, 4), "c d a b"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if n := q.Len(); n != 0 {
		t.Errorf("Len %d after all were handed out (the old place of c counted)", n)
	}
}

// A key marked urgent while its pass runs is queued urgently when the pass
// ends; once handed out, the mark is gone.
func TestUrgentWhileProcessing(t *testing.T) {
	q := New(Options{Name: "test-priority-processing"})
	defer q.ShutDown()
	q.Add(pkey("a"))
	k, _ := q.q.Get() // a's pass runs
	q.Add(pkey("b"))
	q.AddUrgent(pkey("a"))
	q.q.Done(k)
	if got := get(t, q); got != pkey("a") {
		t.Fatalf("got %v first, want a (urgent after its pass)", got)
	}
	q.Add(pkey("c"))
	q.Add(pkey("a"))
	if got, want := takeN(t, q, 3), "b c a"; got != want {
		t.Errorf("order %q, want %q: the urgent mark outlived its pass", got, want)
	}
}

// Three priorities: Urgent before Soon before Normal, first come first
// served within each; a key is never moved down.
func TestPrioritiesOrderTheQueue(t *testing.T) {
	q := New(Options{Name: "test-priority-levels"})
	defer q.ShutDown()
	q.Add(pkey("a"))
	q.Add(pkey("b"))
	q.AddWith(Soon, pkey("c"))
	q.AddUrgent(pkey("d"))
	q.AddWith(Soon, pkey("a")) // moves up behind c
	q.AddWith(Soon, pkey("d")) // stays urgent
	if got, want := takeN(t, q, 4), "d c a b"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
}

// A resync (AddLater) waits behind every key added otherwise, and a key
// waiting for its resync moves up when it is added at Normal: a new or
// changed object never waits behind the resync of a thousand others.
func TestResyncsGoLast(t *testing.T) {
	q := New(Options{Name: "test-priority-later"})
	defer q.ShutDown()
	q.AddLater(pkey("r1"))
	q.AddLater(pkey("r2"))
	q.AddLater(pkey("r3"))
	q.Add(pkey("new"))
	q.Add(pkey("r2"))       // changed while its resync waits: moves up
	q.AddLater(pkey("new")) // a resync of a waiting key: keeps its place
	q.AddUrgent(pkey("u"))
	if got, want := takeN(t, q, 5), "u new r2 r1 r3"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if n := q.Len(); n != 0 {
		t.Errorf("Len %d after all were handed out", n)
	}
}

// A key added at Normal while its pass runs is not pushed back by a
// resync that comes before the pass ends; a resync alone is queued last.
func TestResyncWhileProcessing(t *testing.T) {
	q := New(Options{Name: "test-priority-later-processing"})
	defer q.ShutDown()
	q.Add(pkey("a"))
	q.Add(pkey("b"))
	ka, _ := q.q.Get()    // a's pass runs
	kb, _ := q.q.Get()    // b's pass runs
	q.Add(pkey("a"))      // a changed meanwhile
	q.AddLater(pkey("a")) // then its resync
	q.AddLater(pkey("b")) // b: only a resync
	q.Add(pkey("c"))
	q.q.Done(ka)
	q.q.Done(kb)
	if got, want := takeN(t, q, 3), "c a b"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
}
