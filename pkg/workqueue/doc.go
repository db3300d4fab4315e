// Package workqueue runs reconcile passes from client-go's typed
// rate-limited queue and keeps their outcomes distinct, as
// controller-runtime would:
//
//   - success: Forget the key (its backoff resets);
//   - an expected wait (Result.RequeueAfter): Forget, then AddAfter — a wait
//     is not a failure, so it does not grow the backoff;
//   - a transient error: AddRateLimited, with per-key exponential backoff;
//   - a terminal error (Terminal): Forget and do not requeue; the object's
//     status carries the error and the next change to the object brings
//     the key back.
//
// Keys are deduplicated by the queue: a key added while queued is queued
// once, and a key is never processed by two workers at once.
package workqueue
