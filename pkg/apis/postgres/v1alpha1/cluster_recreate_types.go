package v1alpha1

// RecreateAnnotation on a PostgresCluster whose CNPG Cluster was deleted
// out of band after it had been Ready (phase Failed, reason
// ReasonProvisionerLost) asks setpoint to create the CNPG Cluster again:
//   - RecreateEmpty: a new, empty cluster;
//   - RecreateLatestBackup: a cluster recovered from the lost one's own
//     archive folder (its latest base backup and every WAL archived
//     after it), refused while the object store reports no backup there.
//
// Either way the new cluster archives under a folder of its own. The
// request is carried out once: setpoint removes the annotation after it
// has created the CNPG Cluster, and removes it with a Warning Event
// (RecreateIgnored) when nothing was lost, so that it never stands in
// advance for a later loss.
const RecreateAnnotation = "postgres.setpoint.dev/recreate"

// The values of RecreateAnnotation.
const (
	RecreateEmpty        = "empty"
	RecreateLatestBackup = "latest-backup"
)
