// Package workqueue runs reconcile passes from client-go's typed
// rate-limited queue and keeps their outcomes distinct, as
// controller-runtime would. One function, classify, decides each pass's
// Outcome, and the Outcome decides what happens to the key, the label of
// setpoint_reconcile_total and the log line:
//
//   - success: Forget the key (its backoff resets);
//   - wait (Result.RequeueAfter): Forget, then AddAfter — a wait is not a
//     failure, so it does not grow the backoff;
//   - retry (an error): AddRateLimited, with per-key exponential backoff;
//   - terminal (Terminal): Forget and do not requeue; the object's status
//     carries the error and the next change to the object brings the key
//     back;
//   - failed (Result.Failed): the pass wrote the object as Failed; Forget,
//     and AddAfter only for a slow recheck when RequeueAfter is set;
//   - panic: recovered and retried with backoff like an error.
//
// Keys are deduplicated by the queue: a key added while queued is queued
// once, and a key is never processed by two workers at once. Once shutdown
// begins, workers finish the pass in hand and take no further keys.
package workqueue
