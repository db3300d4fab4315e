package v1alpha1

// PostgresUnreachable of PostgresCluster
const (
	// ReasonSampleFailed means the collector's last sample of the primary
	// failed (the error is quoted); the condition is True. What to do:
	// check the primary's Pod and the network between the operator and
	// it; the condition clears by itself once a sample succeeds.
	ReasonSampleFailed = "SampleFailed"
	// ReasonSampled means the primary answers again; False. What to do:
	// nothing.
	ReasonSampled = "Sampled"
)

// NotAcceptingWrites of PostgresCluster
const (
	// ReasonPrimaryUnreachable means the primary cannot be sampled, so
	// whether it accepts writes is Unknown. What to do: check the
	// primary's Pod and the network between the operator and it (see
	// PostgresUnreachable); it clears by itself once a sample succeeds.
	ReasonPrimaryUnreachable = "PostgresUnreachable"
	// ReasonAcceptingWrites means the primary accepts writes; False.
	// What to do: nothing.
	ReasonAcceptingWrites = "AcceptingWrites"
	// ReasonInRecovery means the primary is in recovery; True. What to
	// do: wait for recovery to end; if it does not, look at the CNPG
	// Cluster's status.
	ReasonInRecovery = "InRecovery"
	// ReasonReadOnly means the primary is read-only
	// (default_transaction_read_only); True. What to do: find out who
	// turned default_transaction_read_only on (postgresqlConfig, ALTER
	// SYSTEM, ALTER DATABASE) and turn it off.
	ReasonReadOnly = "ReadOnly"
)

// ConnectionsSaturated of PostgresCluster
const (
	// ReasonConnectionsSaturated means connections in use reached 90 % of
	// max_connections; True. What to do: raise max_connections, add a
	// pooler, or find the client that holds connections.
	ReasonConnectionsSaturated = "ConnectionsSaturated"
	// ReasonConnectionsAvailable means connections are available again;
	// False. What to do: nothing.
	ReasonConnectionsAvailable = "ConnectionsAvailable"
)

// StorageNearlyFull of PostgresCluster
const (
	// ReasonStorageNearlyFull means the data takes at least the
	// nearly-full share of the volume; True. What to do: grow
	// storage.size, enable storage.autoGrow, or free space.
	ReasonStorageNearlyFull = "StorageNearlyFull"
	// ReasonStorageAvailable means the volume has room again; False.
	// What to do: nothing.
	ReasonStorageAvailable = "StorageAvailable"
)

// SynchronousStandbysMissing of PostgresCluster
const (
	// ReasonCommitsWait means the primary asks more synchronous standbys
	// to confirm each commit than stream now, so commits block; True.
	// What to do: bring the missing standby back (kubectl get pods, the
	// CNPG Cluster's status), or set durability.dataDurability Preferred
	// to let commits go on without it.
	ReasonCommitsWait = "CommitsWait"
	// ReasonSynchronousStandbysStreaming means enough synchronous
	// standbys stream again; False. What to do: nothing.
	ReasonSynchronousStandbysStreaming = "SynchronousStandbysStreaming"
)

// StorageAtLimit of PostgresCluster
const (
	// ReasonAtLimit means usage is over the auto-grow threshold and the
	// volumes are already at autoGrow.limit; True. What to do: raise
	// storage.autoGrow.limit or free space.
	ReasonAtLimit = "AtLimit"
	// ReasonUnderThreshold means the volumes are at the limit but usage
	// is under the threshold; False. What to do: nothing yet; raise the
	// limit before usage grows.
	ReasonUnderThreshold = "UnderThreshold"
	// ReasonBelowLimit means auto-grow can still raise the volumes;
	// False. What to do: nothing.
	ReasonBelowLimit = "BelowLimit"
)
