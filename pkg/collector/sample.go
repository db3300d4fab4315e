// Package collector observes what the Kubernetes cache cannot: the health
// Postgres itself reports (size, writes accepted, connections, lag),
// sampled in the background on a slow cadence and kept in memory. A pass
// reads the last sample from its snapshot and never queries these itself;
// the collector wakes a cluster only when a sample crosses an edge.
package collector

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Sample is the last observation of one cluster's primary.
type Sample struct {
	// At is when the round trip finished (or failed).
	At time.Time
	// Err is why the sample failed (unreachable, timeout); the other
	// fields are then zero. It never holds a password.
	Err string
	// DatabaseBytes is the sum of pg_database_size over every database.
	DatabaseBytes int64
	// WALBytes is the size of pg_wal.
	WALBytes int64
	// AcceptsWrites: the primary is out of recovery and not read-only.
	AcceptsWrites bool
	// InRecovery: the server is a standby (pg_is_in_recovery), one reason
	// not to accept writes; the other is default_transaction_read_only.
	InRecovery bool
	// Connections in use, and the server's max_connections.
	Connections    int
	MaxConnections int
	// ReplicationLagBytes is the largest replay lag of a standby, nil
	// when there are no standbys.
	ReplicationLagBytes *int64
	// SynchronousRequired is how many standbys each commit waits for, read
	// from the primary's synchronous_standby_names (0: asynchronous).
	SynchronousRequired int
	// SynchronousStandbys are the application names (CloudNativePG: the
	// instances' Pod names) of the standbys that confirm commits now,
	// sorted; nil when none does.
	SynchronousStandbys []string
	// LastReplayed is the commit time of the last transaction a server in
	// recovery replayed (pg_last_xact_replay_timestamp): how far a replica
	// cluster has caught up with its source. Nil on a primary, and until
	// the first commit is replayed. It moves only when the source commits,
	// so its age is the replay lag only while the source writes.
	LastReplayed *time.Time
	// Streaming: a server in recovery receives WAL from a primary now
	// (pg_stat_wal_receiver says streaming), not from the archive alone.
	Streaming bool

	// SizeBytes is the data volume's size (the CNPG Cluster's
	// storage.size) the usage was measured against; 0 when unknown.
	SizeBytes int64
	// Level is what the sample means once hysteresis is applied: the
	// collector wakes the cluster only when it changes, and the pass sets
	// its conditions from it, so both agree on every edge.
	Level Level

	// uid is the cluster the sample was taken of.
	uid types.UID
}

// Failed says whether the sample could not be taken.
func (s Sample) Failed() bool { return s.Err != "" }

// CommitsWait says whether a commit waits for more synchronous standbys
// than stream now: it blocks until one returns.
func (s Sample) CommitsWait() bool { return s.SynchronousRequired > len(s.SynchronousStandbys) }

// UsedBytes is the data the volume holds: databases and WAL.
func (s Sample) UsedBytes() int64 { return s.DatabaseBytes + s.WALBytes }

// Reader hands a pass the last sample of a PostgresCluster.
type Reader interface {
	// Sample returns the last sample of the cluster, false when none was
	// taken yet (or the cluster is not sampled).
	Sample(key types.NamespacedName) (Sample, bool)
}
