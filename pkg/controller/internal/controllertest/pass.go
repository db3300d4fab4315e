package controllertest

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Outcome is what one whole pass must have done: its ordered writes, its
// Events (prefixes, in order), the error it returns (nil: none), and the
// status stored after it (phase and the Ready condition's reason).
type Outcome struct {
	Writes []Write
	Events []string
	Err    func(error) bool
	Phase  pgv1.Phase
	Reason string
}

// Check fails t unless the pass that returned err, made actions and
// recorded events, left the status phase and conditions, did what o says.
func (o Outcome) Check(t *testing.T, err error, actions []k8stesting.Action, events []string, phase pgv1.Phase, conds []metav1.Condition) {
	t.Helper()
	switch {
	case o.Err == nil && err != nil:
		t.Fatalf("sync: %v", err)
	case o.Err != nil && (err == nil || !o.Err(err)):
		t.Fatalf("sync: %v, not the error expected", err)
	}
	Expect(t, actions, o.Writes)
	if len(events) != len(o.Events) {
		t.Fatalf("events %q, want %q", events, o.Events)
	}
	for i, e := range o.Events {
		if !strings.HasPrefix(events[i], e) {
			t.Errorf("event %d = %q, want %q…", i, events[i], e)
		}
	}
	reason := ""
	if c := meta.FindStatusCondition(conds, pgv1.ConditionReady); c != nil {
		reason = c.Reason
	}
	if phase != o.Phase || reason != o.Reason {
		t.Errorf("stored status: phase %q, Ready reason %q; want %q, %q", phase, reason, o.Phase, o.Reason)
	}
}

// Events drains the Events rec recorded so far.
func Events(rec *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// Items turns a List's items into what an indexer's Replace takes.
func Items[T any](in []T) []any {
	out := make([]any, len(in))
	for i := range in {
		out[i] = &in[i]
	}
	return out
}

// Case is one whole pass of a controller's sync in a table test: the world
// before it (Prepare, on the test's fixture F), the API faults of the
// pass, and what it must do.
type Case[F any] struct {
	Name    string
	Prepare func(t *testing.T, f F)
	Faults  []Fault
	Writes  []Write
	Events  []string // prefixes, in order
	Phase   pgv1.Phase
	Reason  string // of Ready
	Err     func(error) bool
}

// Outcome is what the case's pass must have done.
func (c Case[F]) Outcome() Outcome {
	return Outcome{Writes: c.Writes, Events: c.Events, Err: c.Err, Phase: c.Phase, Reason: c.Reason}
}

// Fixture is what RunCase needs of a controller's whole-pass fixture.
type Fixture interface {
	// Drain drops the Events recorded so far.
	Drain()
	// FaultyAPI is the API stand-in the fixture's clientsets share.
	FaultyAPI() *API
	// Pass runs one pass of the object name and returns the Events it
	// recorded, the status stored after it, and the pass's error.
	Pass(name string) (events []string, phase pgv1.Phase, conds []metav1.Condition, err error)
}

// RunCase runs c on f: Prepare, then one pass of name under c's faults,
// checked against c's outcome.
func RunCase[F Fixture](t *testing.T, c Case[F], f F, name string) {
	t.Helper()
	if c.Prepare != nil {
		c.Prepare(t, f)
	}
	f.Drain()
	f.FaultyAPI().Fail(c.Faults...)
	events, phase, conds, err := f.Pass(name)
	c.Outcome().Check(t, err, f.FaultyAPI().Actions(), events, phase, conds)
}
