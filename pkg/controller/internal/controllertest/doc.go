// Package controllertest is the whole-pass test kit of both controllers:
// an API server stand-in for fake clientsets that versions objects the
// way etcd does, refuses a stale write with a Conflict and fails the
// requests a table names (API), and the comparison of the ordered
// writes a pass made with the writes a test expects (Writes, Expect).
package controllertest
