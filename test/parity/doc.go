// Package parity holds the CNPG stand-in to real CloudNativePG: one list
// of scenarios (a cluster with a pooler and backups, a database with its
// three roles, CNPG's own refusals of a DatabaseRole and a Database, an
// on-demand backup, a restore, the object store's credentials wrong, then
// fixed, and CNPG's own offline major upgrade of a Cluster from 15 to 17
// through an image catalog, step by step) that test/e2e runs against the stand-in and
// test/realcnpg against real CNPG, each through setpoint as a user drives
// it. Every scenario step reads the CNPG status setpoint reads (the typed
// subset of pkg/apis/cnpg/v1 and pkg/apis/barmancloud/v1: phases and
// reasons, conditions, Database, DatabaseRole, Pooler, Backup and
// ObjectStore status) and setpoint's own conclusions, normalized so that
// what differs by site or by moment (times, generations, WAL positions,
// paths) is replaced by a marker, and compares them with the record of
// real CNPG in testdata/real-cnpg.json.
//
// The real tier holds real CNPG to the record (and writes it again with
// SETPOINT_PARITY_RECORD=1); the stand-in tier holds the stand-in to it,
// except the differences listed in differences.go, each with the reason
// it stays — and a listed difference the stand-in no longer has fails the
// run, so the list cannot go stale.
package parity
