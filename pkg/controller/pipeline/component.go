package pipeline

import "context"

// Component is a stage split in two (docs/adr/0002-component-pipelines.md):
// Reconcile actuates, Observe judges. Observe runs after Reconcile, given
// its error, so the judgment reads what the writes left — the other
// system's own status, in the cluster's pipeline — and decides whether a
// write that failed is a wait, a failure or a transient error.
//
// Component values are built once and shared by every worker: what one
// carries from its Reconcile to its Observe lives in the pass, not in the
// value (docs/adr/0009-components-own-their-pass-state.md).
type Component[P any] interface {
	// Name is how the phase message names the component when it holds
	// the pipeline back.
	Name() string
	// Condition is the status condition the component owns.
	Condition() string
	// Reconcile actuates: makes the desired state true.
	Reconcile(ctx context.Context, p P) error
	// Observe converges: classifies where things stand, given Reconcile's
	// error, and publishes the contracts it provides.
	Observe(ctx context.Context, p P, reconcileErr error) Health
}

// ComponentStage runs a component as a stage of the runner: Reconcile,
// then Observe; a Reconcile error the component did not judge Failed is
// the pass's transient error (retried with backoff once status is
// written). What the component declares besides (Contracted, Preparer)
// the stage declares for it.
type ComponentStage[P any] struct{ Component[P] }

// Run is Reconcile, then Observe with Reconcile's error. Observe's own
// error, when it gives one, is the one kept.
func (s ComponentStage[P]) Run(ctx context.Context, p P) Health {
	err := s.Reconcile(ctx, p)
	h := s.Observe(ctx, p, err)
	if err != nil && h.Err == nil {
		h.Err = err
	}
	return h
}

// Prepare lets the runner start a blocked component that can begin ahead
// (Preparer); the others have nothing to prepare.
func (s ComponentStage[P]) Prepare(ctx context.Context, p P) error {
	if pr, ok := s.Component.(Preparer[P]); ok {
		return pr.Prepare(ctx, p)
	}
	return nil
}

// Requires is what the component requires (Contracted), or nothing.
func (s ComponentStage[P]) Requires() []Contract {
	if c, ok := s.Component.(Contracted); ok {
		return c.Requires()
	}
	return nil
}

// Provides is what the component publishes (Contracted), or nothing.
func (s ComponentStage[P]) Provides() []Contract {
	if c, ok := s.Component.(Contracted); ok {
		return c.Provides()
	}
	return nil
}

// StagesOf is the ordered stages of ordered components. C is the
// controller's own component interface, which adds to Component.
func StagesOf[P any, C Component[P]](cs []C) []Stage[P] {
	out := make([]Stage[P], 0, len(cs))
	for _, c := range cs {
		out = append(out, ComponentStage[P]{c})
	}
	return out
}
