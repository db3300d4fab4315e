// Package ownership is the proof setpoint gives before every write: which
// objects are ours (the labels, owner references and Postgres comment
// markers we set), judging an existing child (Owner.Judge: ours, retained
// for us, or someone else's), claiming it right before a write (Claim:
// read it live when the cache cannot see it, adopt what a Retain deletion
// kept for us, refuse the rest with a ConflictError that names the
// conflict), releasing what Retain keeps (Owner.ReleasePatch), and our
// finalizers. Both controllers claim through it.
package ownership
