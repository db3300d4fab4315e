// Package testkit holds the test helpers that the stand-in tier (test/e2e,
// test/cnpgsim), the real tier (test/realcnpg) and the scenarios both run
// (test/parity) share, written once so that each tier does not keep its
// own copy with its own timeouts and pacing (issue 45, "one test kit").
// A helper takes its deadline and poll interval from the caller, since a
// real node is slower than the stand-in, and never sleeps a fixed time as
// proof: it polls for the thing it waits on. The waits on the API are the
// methods of a Kit, one per tier, whose Scale grows the kit's own
// timeouts on a slower tier.
//
// It has no way of its own to reach Postgres: a helper runs statements
// through a Query the tier builds from a session (Conn wraps a pgx.Conn),
// and opens sessions only through the tier's Sessions (a Service's
// connection configuration) or CertConfig (a certificate login's), since
// each tier reaches the cluster differently (a host map on the stand-in,
// the node's Services on the real tier). Likewise a tier says how it sees
// a WAL segment archived (WALArchived) and what a failed test's namespace
// should log (Describe).
package testkit
