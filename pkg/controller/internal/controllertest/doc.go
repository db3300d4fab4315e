// Package controllertest is the whole-pass test kit of both controllers:
// an API server stand-in for fake clientsets that versions objects the
// way etcd does, refuses a stale write with a Conflict and fails the
// requests a table names (API), the comparison of the ordered writes a
// pass made with the writes a test expects (Writes, Expect), and the
// comparison of what was written as whole objects, with a diff: the
// object, apply body or patch a request sent (Sends) or the object as
// stored after the pass (Diff).
package controllertest
