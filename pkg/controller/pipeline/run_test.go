package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

var (
	contractA = Contract{Name: "A", WaitingReason: "WaitingForA"}
	contractB = Contract{Name: "B", WaitingReason: "WaitingForB"}
)

// fakePass is a pass with a status and the contracts published so far.
type fakePass struct {
	phase      pgv1.Phase
	observed   int64
	conditions []metav1.Condition
	published  map[Contract]bool
	ran        []string
}

func newFakePass() *fakePass { return &fakePass{published: map[Contract]bool{}} }

func (p *fakePass) Status() Status {
	return Status{Phase: &p.phase, ObservedGeneration: &p.observed, Conditions: &p.conditions, Generation: 3}
}
func (p *fakePass) Has(c Contract) bool { return p.published[c] }

// stub is a scripted stage: it publishes what it provides unless
// unpublished, and reports h.
type stub struct {
	name               string
	requires, provides []Contract
	unpublished        bool
	h                  Health
}

func (s stub) Name() string         { return s.name }
func (s stub) Condition() string    { return s.name + "Ready" }
func (s stub) Requires() []Contract { return s.requires }
func (s stub) Provides() []Contract { return s.provides }
func (s stub) Run(_ context.Context, p *fakePass) Health {
	p.ran = append(p.ran, s.name)
	for _, c := range s.provides {
		p.published[c] = !s.unpublished
	}
	return s.h
}

func stages(ss ...stub) []Stage[*fakePass] {
	var out []Stage[*fakePass]
	for _, s := range ss {
		out = append(out, s)
	}
	return out
}

func TestRunRejectsWiringBugsBeforeRunningAnything(t *testing.T) {
	t.Parallel()
	p := newFakePass()
	_, err := Run(t.Context(), stages(
		stub{name: "user", requires: []Contract{contractA}},
		stub{name: "maker", provides: []Contract{contractA}},
	), p)
	if err == nil || !strings.Contains(err.Error(), "stage user requires A, which no earlier stage provides") {
		t.Fatalf("err = %v", err)
	}
	if len(p.ran) != 0 {
		t.Fatalf("stages ran despite the wiring error: %v", p.ran)
	}
}

func TestRunStopsAtFirstStageNotReadyAndBlocksTheRest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		blocker Health
	}{
		{"waiting", Waiting(pgv1.PhaseProvisioning, "Creating", "b is creating", 5*time.Second)},
		{"failed", Failed("Broken", "b is broken", time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newFakePass()
			out, err := Run(t.Context(), stages(
				stub{name: "a", h: Waiting(pgv1.PhaseReady, "A", "", time.Hour)},
				stub{name: "b", h: tc.blocker},
				stub{name: "c", h: Ready("C", "")},
			), p)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(p.ran, ",") != "a,b" {
				t.Errorf("ran %v, want a,b", p.ran)
			}
			if out.Blocker != "b" || out.Health != tc.blocker || out.RequeueAfter != tc.blocker.RequeueAfter {
				t.Errorf("outcome %+v, want blocker b with the soonest requeue", out)
			}
			expectCondition(t, p, "aReady", metav1.ConditionTrue, "A", "")
			expectCondition(t, p, "bReady", metav1.ConditionFalse, tc.blocker.Reason, tc.blocker.Message)
			expectCondition(t, p, "cReady", metav1.ConditionFalse, pgv1.ReasonBlocked, "waiting for bReady")
		})
	}
}

func TestRunWaitsForAContractNotPublishedThisPass(t *testing.T) {
	t.Parallel()
	p := newFakePass()
	out, err := Run(t.Context(), stages(
		stub{name: "maker", provides: []Contract{contractA}, unpublished: true, h: Ready("M", "")},
		stub{name: "user", requires: []Contract{contractA}, h: Ready("U", "")},
		stub{name: "last", h: Ready("L", "")},
	), p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.ran, ",") != "maker" || out.Blocker != "user" {
		t.Errorf("ran %v, blocker %q; want user skipped and blocking", p.ran, out.Blocker)
	}
	expectCondition(t, p, "userReady", metav1.ConditionFalse, "WaitingForA", "waiting for A")
	expectCondition(t, p, "lastReady", metav1.ConditionFalse, pgv1.ReasonBlocked, "waiting for userReady")
}

func TestRunReportsTheFirstTransientErrorButNotAFailedOne(t *testing.T) {
	t.Parallel()
	boom, later := errors.New("boom"), errors.New("later")
	p := newFakePass()
	out, err := Run(t.Context(), stages(
		stub{name: "a", provides: []Contract{contractB}, h: Health{Phase: pgv1.PhaseReady, Err: boom}},
		stub{name: "b", requires: []Contract{contractB}, h: APIError("WriteFailed", later)},
	), p)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(out.Err, boom) || !strings.HasPrefix(out.Err.Error(), "a: ") {
		t.Errorf("Err = %v, want a's error, named after it", out.Err)
	}
	p = newFakePass()
	out, _ = Run(t.Context(), stages(stub{name: "a", h: Health{Phase: pgv1.PhaseFailed, Reason: "Bad", Err: boom}}), p)
	if out.Err != nil {
		t.Errorf("Err = %v; a Failed stage waits for a change, not a retry", out.Err)
	}
}

func TestConcludeDeclaresReadyOnlyWhenNothingBlocks(t *testing.T) {
	t.Parallel()
	p := newFakePass()
	st := p.Status()
	st.Conclude(Outcome{}, Ready("AllReady", "everything"))
	if p.phase != pgv1.PhaseReady || p.observed != 3 {
		t.Fatalf("phase %s, observedGeneration %d", p.phase, p.observed)
	}
	expectCondition(t, p, pgv1.ConditionReady, metav1.ConditionTrue, "AllReady", "everything")
	st.Conclude(Outcome{Blocker: "pooler", Health: Waiting(pgv1.PhaseProvisioning, "PoolerProvisioning", "waiting", 0)}, Ready("AllReady", ""))
	if p.phase != pgv1.PhaseProvisioning {
		t.Fatalf("phase %s", p.phase)
	}
	expectCondition(t, p, pgv1.ConditionReady, metav1.ConditionFalse, "PoolerProvisioning", "pooler: waiting")
}

func TestRecordUsesThePhaseWhenAStageGivesNoReason(t *testing.T) {
	t.Parallel()
	p := newFakePass()
	p.Status().Record("xReady", Waiting(pgv1.PhasePending, "", "", 0))
	expectCondition(t, p, "xReady", metav1.ConditionFalse, string(pgv1.PhasePending), "")
}

func expectCondition(t *testing.T, p *fakePass, typ string, status metav1.ConditionStatus, reason, message string) {
	t.Helper()
	for _, c := range p.conditions {
		if c.Type == typ {
			if c.Status != status || c.Reason != reason || c.Message != message || c.ObservedGeneration != 3 {
				t.Errorf("%s = %s %s %q (generation %d), want %s %s %q", typ, c.Status, c.Reason, c.Message, c.ObservedGeneration, status, reason, message)
			}
			return
		}
	}
	t.Errorf("no %s condition in %+v", typ, p.conditions)
}
