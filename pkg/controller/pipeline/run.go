package pipeline

import (
	"context"
	"fmt"
	"time"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Pass is what the runner needs of a pass: the status it builds, and
// which contracts earlier stages have published.
type Pass interface {
	Status() Status
	Has(c Contract) bool
}

// Outcome is the result of running a pipeline.
type Outcome struct {
	// Blocker names the first stage that did not reach Ready, if any, and
	// Health is where it stands.
	Blocker string
	Health  Health
	// RequeueAfter is the soonest recheck any stage asked for.
	RequeueAfter time.Duration
	// Err is the first transient error a stage reported: the pass is
	// retried with backoff once status is written.
	Err error
}

// Run walks the stages in order. It stops at the first that is not Ready
// — waiting and failed alike, so nothing is built on a stage that failed
// — and marks the conditions after it Blocked. Behind a stage that waits,
// the next one is prepared if it can start ahead (Preparer). An error is a
// wiring bug:
// a stage needs a contract no earlier stage provides.
func Run[P Pass](ctx context.Context, stages []Stage[P], p P) (Outcome, error) {
	if err := ValidateOrder(stages); err != nil {
		return Outcome{}, err
	}
	st := p.Status()
	var out Outcome
	for i, s := range stages {
		h, ok := missing(s, p)
		if !ok {
			h = s.Run(ctx, p)
		}
		st.Record(s.Condition(), h)
		out.RequeueAfter = Soonest(out.RequeueAfter, h.RequeueAfter)
		if err := h.retryable(); err != nil && out.Err == nil {
			out.Err = fmt.Errorf("%s: %w", s.Name(), err)
		}
		if h.IsReady() {
			continue
		}
		out.Blocker, out.Health = s.Name(), h
		for _, later := range stages[i+1:] {
			SetCondition(st.Conditions, st.Generation, later.Condition(), false, pgv1.ReasonBlocked, "waiting for "+s.Condition())
		}
		if h.Phase == pgv1.PhaseFailed {
			return out, nil
		}
		if i+1 < len(stages) {
			if err := prepare(ctx, stages[i+1], p); err != nil && out.Err == nil {
				out.Err = err
			}
		}
		return out, nil
	}
	return out, nil
}

// prepare calls Prepare on the stage after the one that waits, when it
// can start ahead (see Preparer) and its contracts are published.
func prepare[P Pass](ctx context.Context, next Stage[P], p P) error {
	pr, ok := next.(Preparer[P])
	if !ok {
		return nil
	}
	if _, unmet := missing(next, p); unmet {
		return nil
	}
	if err := pr.Prepare(ctx, p); err != nil {
		return fmt.Errorf("%s (ahead of its turn): %w", next.Name(), err)
	}
	return nil
}

// missing is the Pending health of a stage whose required contract is not
// published this pass; ok is false when the stage may run.
func missing[P Pass](s Stage[P], p P) (Health, bool) {
	c, ok := any(s).(Contracted)
	if !ok {
		return Health{}, false
	}
	for _, r := range c.Requires() {
		if !p.Has(r) {
			return Waiting(pgv1.PhasePending, r.WaitingReason, "waiting for "+r.Name, 0), true
		}
	}
	return Health{}, false
}

// ValidateOrder fails when a stage requires a contract no earlier stage
// provides.
func ValidateOrder[P any](stages []Stage[P]) error {
	provided := map[string]bool{}
	for _, s := range stages {
		c, ok := any(s).(Contracted)
		if !ok {
			continue
		}
		for _, r := range c.Requires() {
			if !provided[r.Name] {
				return fmt.Errorf("stage %s requires %s, which no earlier stage provides", s.Name(), r.Name)
			}
		}
		for _, p := range c.Provides() {
			provided[p.Name] = true
		}
	}
	return nil
}
