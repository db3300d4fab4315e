package operator

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// scopes records the launches of a namespaceSet: each scope sends
// "+ns" when it starts and "-ns" when it has stopped. A scope whose
// namespace is in hold does not finish stopping until released.
type scopes struct {
	events chan string
	mu     sync.Mutex
	hold   map[string]chan struct{}
}

func newScopes() *scopes {
	return &scopes{events: make(chan string, 64), hold: map[string]chan struct{}{}}
}

func (s *scopes) launch(ctx context.Context, ns string) {
	s.events <- "+" + ns
	<-ctx.Done()
	s.mu.Lock()
	h := s.hold[ns]
	s.mu.Unlock()
	if h != nil {
		<-h
	}
	s.events <- "-" + ns
}

// next is the next launch event.
func (s *scopes) next(t *testing.T) string {
	t.Helper()
	select {
	case e := <-s.events:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no scope started or stopped")
		return ""
	}
}

// expect checks the next events are want, in order.
func (s *scopes) expect(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		if got := s.next(t); got != w {
			t.Fatalf("scope event %q, want %q", got, w)
		}
	}
}

// quiet checks nothing more started or stopped: every launch event sent
// before the set's stop is in the channel once stop has returned, as
// stop waits for every scope.
func (s *scopes) quiet(t *testing.T, set *namespaceSet, want ...string) {
	t.Helper()
	set.stop()
	close(s.events)
	var got []string
	for e := range s.events {
		got = append(got, e)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("scope events after the last check %v, want %v", got, want)
	}
}

func selector(t *testing.T, s string) labels.Selector {
	t.Helper()
	sel, err := labels.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// A namespace joins when its labels match, once however often it is
// seen, and leaves when they stop matching or it is deleted.
func TestNamespaceSetJoinAndLeave(t *testing.T) {
	sc := newScopes()
	set := newNamespaceSet(t.Context(), selector(t, "tenant=true"), nil, sc.launch)
	set.observe("team-a", map[string]string{"tenant": "true"})
	set.observe("team-b", map[string]string{"tenant": "false"})
	set.observe("team-a", map[string]string{"tenant": "true", "other": "x"}) // an unrelated label change
	sc.expect(t, "+team-a")
	if got := set.members(); !slices.Equal(got, []string{"team-a"}) {
		t.Errorf("members %v, want [team-a]", got)
	}

	set.observe("team-b", map[string]string{"tenant": "true"}) // labelled
	sc.expect(t, "+team-b")
	set.observe("team-a", map[string]string{}) // unlabelled
	sc.expect(t, "-team-a")
	set.leave("team-b") // deleted
	sc.expect(t, "-team-b")
	set.leave("team-c") // never joined: nothing
	if got := set.members(); len(got) != 0 {
		t.Errorf("members %v, want none", got)
	}
	sc.quiet(t, set)
}

// The selector decides by all of its requirements: a set-based one
// follows a label's value into and out of its set, and an exclusion
// releases a namespace that gains the excluded label.
func TestNamespaceSetSelectorChanges(t *testing.T) {
	sc := newScopes()
	set := newNamespaceSet(t.Context(), selector(t, "tier in (gold,silver),!frozen"), nil, sc.launch)
	set.observe("team-a", map[string]string{"tier": "gold"})
	sc.expect(t, "+team-a")
	set.observe("team-a", map[string]string{"tier": "silver"}) // still in the set: stays
	set.observe("team-a", map[string]string{"tier": "bronze"})
	sc.expect(t, "-team-a")
	set.observe("team-a", map[string]string{"tier": "gold"})
	sc.expect(t, "+team-a")
	set.observe("team-a", map[string]string{"tier": "gold", "frozen": ""})
	sc.expect(t, "-team-a")
	sc.quiet(t, set)
}

// A namespace relabelled while its last scope is still stopping starts
// a new one only after that one is done: never two scopes at once.
func TestNamespaceSetRejoinWaitsForTheStop(t *testing.T) {
	sc := newScopes()
	gate := make(chan struct{})
	sc.hold["team-a"] = gate
	set := newNamespaceSet(t.Context(), selector(t, "tenant"), nil, sc.launch)
	set.observe("team-a", map[string]string{"tenant": ""})
	sc.expect(t, "+team-a")
	set.leave("team-a")
	set.observe("team-a", map[string]string{"tenant": ""})
	if got := set.members(); !slices.Equal(got, []string{"team-a"}) {
		t.Errorf("members %v, want [team-a] (rejoining)", got)
	}
	select {
	case e := <-sc.events:
		t.Fatalf("scope event %q while the last scope is still stopping", e)
	default:
	}
	sc.mu.Lock()
	delete(sc.hold, "team-a")
	sc.mu.Unlock()
	close(gate)
	sc.expect(t, "-team-a", "+team-a")
	sc.quiet(t, set, "-team-a")
}

// --watch-namespaces' namespaces run their scopes for the whole run: the
// set neither starts a second one nor stops theirs.
func TestNamespaceSetLeavesFixedNamespacesAlone(t *testing.T) {
	sc := newScopes()
	set := newNamespaceSet(t.Context(), selector(t, "tenant"), []string{"platform-db"}, sc.launch)
	set.observe("platform-db", map[string]string{"tenant": ""})
	set.observe("platform-db", nil)
	set.leave("platform-db")
	set.observe("team-a", map[string]string{"tenant": ""})
	sc.expect(t, "+team-a")
	sc.quiet(t, set, "-team-a")
}

// stop stops every scope and waits for them; a namespace labelled after
// does not start one.
func TestNamespaceSetStop(t *testing.T) {
	sc := newScopes()
	set := newNamespaceSet(t.Context(), selector(t, "tenant"), nil, sc.launch)
	set.observe("team-a", map[string]string{"tenant": ""})
	set.observe("team-b", map[string]string{"tenant": ""})
	first, second := sc.next(t), sc.next(t)
	if got := []string{first, second}; !slices.Contains(got, "+team-a") || !slices.Contains(got, "+team-b") {
		t.Fatalf("started %v, want team-a and team-b", got)
	}
	set.stop()
	set.observe("team-c", map[string]string{"tenant": ""})
	sc.quiet(t, set, "-team-a", "-team-b")
}
