// Package cachelag is setpoint's one view of what an informer's cache may
// not know yet: Expectations, its own writes per object, and the answer to
// "has the cache caught up with what I wrote?" — Kubernetes' expectations,
// for setpoint's writes (docs/adr/0012-one-view-of-what-the-cache-may-not-know.md).
// Every rule that lets a pass trust or distrust its cache because of a
// write setpoint made goes through it:
//
//   - a pass reads its PostgresCluster or PostgresDatabase at a version its
//     own finalizer or status write replaced: skipped, woken by Handler when
//     the informer delivers a newer one (Updated; the status write records
//     through pipeline.StatusWriter). Without it the pass redid its work and
//     its status write could only come back 409 Conflict: one bench run
//     before the cluster's guard counted 123 on PostgresClusters, none since
//     (a rare race; the tests, not a figure, show the guard:
//     docs/benchmarks/history.md);
//   - a CNPG Database a pass created, ahead of its step's turn or in it, that
//     the next pass's cache does not show yet: not created, nor checked in
//     Postgres, again for CreationWindow (Created). Writes per database of
//     the bench's stream 9.5 → 9.06–9.08 (docs/adr/0006-steps-prepared-ahead.md).
//
// Tricks that look alike and are not lag rules, so stay out of it:
//
//   - informers.IgnoreUnread and IgnoreUpdates (and the cluster's
//     roleChangeUnread) decide which events wake a pass, never whether a pass
//     may trust what it reads: a pass woken otherwise reads the same cache.
//     Their figure is in unread.go (2,200 passes saved at 100 × 10).
//   - The monitor's objects prepared ahead need no record: their names are
//     fixed, so the API server is the expectation — a second create answers
//     AlreadyExists and the claim reads the object live, the DatabaseRole is a
//     server-side apply of the same fields; a repeat costs one request, not a
//     wrong state (docs/adr/0006-steps-prepared-ahead.md).
//   - A database's deferred status (status_defer.go) is about when to write,
//     not what the cache shows: status writes per database 2.52 → 2.00 while
//     converging (docs/adr/0007-one-status-write-per-pass.md).
//   - Interning and the ConfigMap digest (informers) change what the cache
//     keeps of an object, not when it shows our writes: RSS when all Ready
//     68.0 → 63.8 MiB at 100 × 10, with the shared label maps
//     (docs/benchmarks/history.md, 2026-12-05).
//
// Everything here is in memory: a restart forgets it, and the first pass
// trusts the cache, as Kubernetes' controllers do after a restart.
package cachelag
