package parity

// A Difference is a part of one observation where the stand-in stays
// unlike real CNPG, and why. The stand-in's run leaves it out of the
// match and fails when the stand-in no longer differs there.
type Difference struct {
	Key, Path, Why string
}

// Differences are the stand-in's known differences from real CNPG 1.30
// in the scenarios (docs/development/stand-in.md lists them too).
var Differences = []Difference{
	{Key: "cluster/Cluster", Path: "conditions.ContinuousArchiving", Why: continuousArchiving},
	{Key: "backup/Cluster", Path: "conditions.ContinuousArchiving", Why: continuousArchiving},
	{Key: "restore/Cluster", Path: "conditions.ContinuousArchiving", Why: continuousArchiving},
}

// continuousArchiving: CNPG's instance manager reports each
// archive_command's outcome (its wal-archive command calls the instance's
// web server); the stand-in's archive_command is a plain copy that tells
// no one, and setpoint does not read the condition.
const continuousArchiving = "the stand-in does not watch its archive_command's outcome"
