package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Conditions of PostgresCluster from Postgres itself
//
// They report what Postgres itself says, from the background
// collector's samples: what a person must act on. They are absent until
// their first True and False once cleared; they never change the phase
// (a Ready cluster stays Ready).
const (
	// ConditionPostgresUnreachable is True while the collector cannot
	// take a sample of the primary (connection or query failing).
	// What to do: check the primary's pod and CloudNativePG's status;
	// the message quotes the error.
	ConditionPostgresUnreachable = "PostgresUnreachable"
	// ConditionNotAcceptingWrites is True while the primary is in
	// recovery or read-only, Unknown while it cannot be reached.
	// What to do: see its reason.
	ConditionNotAcceptingWrites = "NotAcceptingWrites"
	// ConditionConnectionsSaturated is True while connections in use
	// reach 90 % of max_connections (cleared under 85 %). What to do:
	// raise max_connections, add a pooler, or find the client that
	// holds connections.
	ConditionConnectionsSaturated = "ConnectionsSaturated"
	// ConditionStorageNearlyFull is True while the data takes at least
	// the operator's nearly-full share of the volume (cleared 2 % under).
	// What to do: grow storage.size, enable storage.autoGrow, or free
	// space.
	ConditionStorageNearlyFull = "StorageNearlyFull"
	// ConditionSynchronousStandbysMissing is True while the primary asks
	// more synchronous standbys to confirm each commit than stream:
	// commits, and so writes, block until a standby returns. It happens
	// with durability Synchronous and dataDurability Required (Preferred
	// lowers what the primary asks). What to do: bring the standby back
	// (see the CNPG Cluster's instances), or accept the risk with
	// dataDurability Preferred.
	ConditionSynchronousStandbysMissing = "SynchronousStandbysMissing"
)

// AlarmConditions are the PostgresCluster conditions that are True when
// something is wrong (the others are True when all is well): the
// collector's, and auto-grow's StorageAtLimit. The kubectl plugin marks
// them the other way round.
var AlarmConditions = []string{
	ConditionPostgresUnreachable, ConditionNotAcceptingWrites, ConditionConnectionsSaturated,
	ConditionStorageNearlyFull, ConditionSynchronousStandbysMissing, ConditionStorageAtLimit,
}

// PostgresHealth is a sample of the primary the collector took, as
// status recorded it. Status records a new sample only when something a
// person would notice changed (a condition above, a tenth of the volume
// filled or freed) or status is written anyway: a sample per interval
// written to the API would be a write per cluster per minute for
// nothing. The setpoint_postgres_* metrics carry every sample.
type PostgresHealth struct {
	// sampledAt is when the recorded sample was taken.
	SampledAt metav1.Time `json:"sampledAt"`
	// usedBytes is what the data takes: databases plus WAL.
	UsedBytes int64 `json:"usedBytes"`
	// sizeBytes is the data volume's size usage is measured against (the
	// CNPG Cluster's storage.size); absent when unknown.
	// +optional
	SizeBytes int64 `json:"sizeBytes,omitempty"`
	// usedPercent is usedBytes of sizeBytes, rounded down.
	// +optional
	UsedPercent *int32 `json:"usedPercent,omitempty"`
	// databaseBytes is the sum of pg_database_size over every database.
	DatabaseBytes int64 `json:"databaseBytes"`
	// walBytes is the size of pg_wal.
	WALBytes int64 `json:"walBytes"`
	// acceptsWrites: the primary was out of recovery and not read-only.
	AcceptsWrites bool `json:"acceptsWrites"`
	// connections is the number of client connections in use.
	Connections int32 `json:"connections"`
	// maxConnections is the primary's max_connections.
	MaxConnections int32 `json:"maxConnections"`
	// replicationLagBytes is the largest replay lag of a standby; absent
	// without standbys.
	// +optional
	ReplicationLagBytes *int64 `json:"replicationLagBytes,omitempty"`
	// lastReplayedAt is the commit time of the last transaction this
	// cluster replayed from its source, while it is a replica cluster
	// (pg_last_xact_replay_timestamp); absent on a primary. It moves only
	// when the source commits. Recorded with the other figures, not at
	// every sample: the metric setpoint_postgres_last_replay_timestamp_seconds
	// follows each sample.
	// +optional
	LastReplayedAt *metav1.Time `json:"lastReplayedAt,omitempty"`
	// synchronousRequired is how many standbys each commit waits for now,
	// read from the primary's synchronous_standby_names; absent when
	// replication is asynchronous.
	// +optional
	SynchronousRequired int32 `json:"synchronousRequired,omitempty"`
	// synchronousStandbys are the instances that confirm commits now
	// (pg_stat_replication's sync or quorum standbys).
	// +optional
	// +listType=atomic
	SynchronousStandbys []string `json:"synchronousStandbys,omitempty"`
}
