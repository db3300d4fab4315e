// Package database is the PostgresDatabase controller. A pass (sync.go)
// runs, in this order:
//
//  1. skip while the cache has not seen our own last write of the object
//     (cachelag.Expectations), and read one observation snapshot (observe);
//  2. on deletion, carry out each database's deletionPolicy (finalize);
//  3. refuse child names another PostgresDatabase's would share
//     (InvalidName, Failed until the spec changes);
//  4. add the finalizer, creating missing generated Secrets beside it;
//  5. walk the linear condition pipeline on the shared runner
//     (pipeline.Run over stages; docs/adr/0002-component-pipelines.md):
//     steps() in step.go, whose conditions, in order, are
//     pgv1.DatabaseConditions (checked by a test). Conditions accumulate; the pass
//     stops at the first step that is not ready, with that step's requeue
//     hint, and marks the conditions after it Blocked; while the roles
//     step waits, a database whose owner role CNPG applied gets its CNPG
//     Database ahead of its step's turn (databases_ahead.go);
//  6. carry out the deletionPolicy of databases that left the spec
//     (cleanupRemoved);
//  7. conclude phase and Ready, and write status once, unless the pass only
//     moved forward between expected waits, which is written late
//     (status_defer.go; docs/adr/0007-one-status-write-per-pass.md).
//
// Steps reach the world through the pass's deps (deps.go), built once by
// the Controller, never through the Controller itself
// (docs/adr/0010-database-steps-hold-their-dependencies.md).
//
// Each role is a CNPG DatabaseRole of its own, named after the cluster and
// the role, so the API server decides which PostgresDatabase has a role.
// The pipeline is described for users in docs/concepts/pipelines.md.
package database
