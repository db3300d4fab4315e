package pipeline

import "context"

// Stage is one step of a pipeline over passes of type P.
type Stage[P any] interface {
	// Name is how the phase message names the stage when it holds the
	// pipeline back.
	Name() string
	// Condition is the status condition the stage owns.
	Condition() string
	// Run does the stage's work on the pass and says where it stands.
	Run(ctx context.Context, p P) Health
}

// Contract is something a stage publishes on the pass for later stages,
// and the reason a stage that needs it shows while it is missing.
type Contract struct {
	Name          string
	WaitingReason string
}

// Contracted is a stage that declares what it needs and what it
// publishes. Stages that do not implement it need nothing.
type Contracted interface {
	Requires() []Contract
	Provides() []Contract
}

// Func is a stage made of a function, named after its condition.
type Func[P any] struct {
	Cond string
	Do   func(ctx context.Context, p P) Health
}

func (f Func[P]) Name() string                        { return f.Cond }
func (f Func[P]) Condition() string                   { return f.Cond }
func (f Func[P]) Run(ctx context.Context, p P) Health { return f.Do(ctx, p) }
