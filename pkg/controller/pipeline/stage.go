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

// Preparer is a stage that can start its work ahead of its turn. When the
// stage just before it waits (not when it failed), the runner calls
// Prepare, provided the contracts the stage requires are published: it may
// create what another system takes long to act on (a CNPG object CNPG
// applies once the Cluster runs, or once a role exists), so that that wait
// overlaps the earlier stage's. Only the next stage: one further on would
// be built on more than a single wait. Prepare judges nothing — the
// stage's condition stays Blocked, and what it finds in the way is
// reported when the stage runs. Its error is the pass's transient error.
type Preparer[P any] interface {
	Prepare(ctx context.Context, p P) error
}
