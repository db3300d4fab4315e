package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// split is a scripted component: Reconcile returns err, Observe h.
type split struct {
	name string
	err  error
	h    Health
}

func (s split) Name() string      { return s.name }
func (s split) Condition() string { return s.name + "Ready" }
func (s split) Reconcile(_ context.Context, p *fakePass) error {
	p.ran = append(p.ran, "reconcile "+s.name)
	return s.err
}
func (s split) Observe(_ context.Context, p *fakePass, err error) Health {
	p.ran = append(p.ran, "observe "+s.name)
	return s.h
}

// splitPreparing can start ahead and requires contractA.
type splitPreparing struct{ split }

func (s splitPreparing) Prepare(_ context.Context, p *fakePass) error {
	p.ran = append(p.ran, "prepare "+s.name)
	return nil
}
func (splitPreparing) Requires() []Contract { return []Contract{contractA} }
func (splitPreparing) Provides() []Contract { return nil }

func TestAComponentStageKeepsReconcilesErrorUnlessJudgedFailed(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	p := newFakePass()
	h := ComponentStage[*fakePass]{split{name: "c", err: boom, h: Waiting(pgv1.PhasePending, "W", "", 0)}}.Run(t.Context(), p)
	if !errors.Is(h.Err, boom) || strings.Join(p.ran, ",") != "reconcile c,observe c" {
		t.Errorf("health %+v after %v, want Reconcile then Observe, with Reconcile's error", h, p.ran)
	}
	out, err := Run(t.Context(), StagesOf[*fakePass]([]Component[*fakePass]{split{name: "c", err: boom, h: Failed("Bad", "", 0)}}), newFakePass())
	if err != nil || out.Err != nil || out.Health.Phase != pgv1.PhaseFailed {
		t.Errorf("outcome %+v, err %v; a Failed component is not retried", out, err)
	}
}

func TestAComponentStageDeclaresWhatItsComponentDoes(t *testing.T) {
	t.Parallel()
	p := newFakePass()
	p.published[contractA] = true
	stages := StagesOf[*fakePass]([]Component[*fakePass]{
		split{name: "first", h: Waiting(pgv1.PhaseProvisioning, "W", "", time.Second)},
		splitPreparing{split{name: "second", h: Ready("R", "")}},
	})
	if err := ValidateOrder(stages); err == nil {
		t.Error("the order validated, though second requires A, which no earlier stage provides")
	}
	if _, ok := stages[0].(Contracted); !ok || stages[0].(Contracted).Requires() != nil {
		t.Error("a component without contracts requires something")
	}
	if err := prepare(t.Context(), stages[1], p); err != nil || strings.Join(p.ran, ",") != "prepare second" {
		t.Errorf("prepared %v (err %v), want second prepared", p.ran, err)
	}
}
