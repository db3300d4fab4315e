// Package pipeline runs the stages of a reconcile pass
// (docs/adr/0002-component-pipelines.md), the same way for both
// controllers (docs/adr/0004-one-runner-for-both-controllers.md).
//
// A stage owns one status condition. The runner calls the stages in
// order, records each one's condition from the Health it returns, stops at
// the first stage that is not Ready and marks the conditions after it
// Blocked: a stale True would claim more than the pass verified
// (docs/adr/0005-conditions-after-a-blocker.md). Health is
// the one error protocol of every stage — ready, waiting (with a recheck),
// failed (someone must change something) or a transient error (retried
// with backoff once status is written). The pass then concludes its phase
// from the Outcome and writes status once, and not at all when nothing
// changed (StatusWriter; docs/adr/0007-one-status-write-per-pass.md).
//
// A stage is usually a Component, Reconcile then Observe, run by
// ComponentStage: both controllers write their stages that way.
//
// Stages that build on what an earlier stage publishes declare it
// (Contracted); the runner checks the order on every pass, so a wiring
// mistake fails loudly rather than running a stage on missing input.
//
// A stage can start ahead of its turn (Preparer): while the stage before
// it waits — typically on another system, CNPG — the runner lets it create
// what that system takes long to act on, so the two waits overlap instead
// of adding up. It judges nothing and its condition stays Blocked
// (docs/adr/0006-steps-prepared-ahead.md).
package pipeline
