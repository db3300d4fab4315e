package v1alpha1

// MajorUpgrade of PostgresCluster
const (
	// ReasonUpgradePreflight means the upgrade checks what the target
	// major needs before anything changes: its image has every
	// extension the databases declare, no parameter the new major
	// removed is set, and CloudNativePG runs the target major. What to
	// do: wait; the cluster still runs its old major.
	ReasonUpgradePreflight = "UpgradePreflight"
	// ReasonUpgradePreflightFailed means a preflight check failed; the
	// message names each obstacle, and the cluster runs its old major,
	// untouched. What to do: remove the obstacles (drop the extension,
	// unset the parameter, pick an image that has it), or set
	// postgresVersion back to the running major.
	ReasonUpgradePreflightFailed = "UpgradePreflightFailed"
	// ReasonUpgradeBackingUp means the on-demand backup taken before the
	// upgrade runs (status.upgrade.backup names it). What to do: wait.
	ReasonUpgradeBackingUp = "UpgradeBackingUp"
	// ReasonUpgradeNeedsBackup means the cluster has no object store, so
	// no backup can be taken first, and nobody acknowledged upgrading
	// without one. What to do: configure backup.objectStore, or set the
	// annotation postgres.setpoint.dev/upgrade-without-backup to the
	// target major.
	ReasonUpgradeNeedsBackup = "UpgradeNeedsBackup"
	// ReasonUpgradeBackupFailed means the backup taken before the
	// upgrade failed (CloudNativePG's error is quoted); nothing was
	// upgraded. What to do: fix what the backup's error names (see
	// BackupHealthy), then set postgres.setpoint.dev/retry-upgrade to a
	// new value.
	ReasonUpgradeBackupFailed = "UpgradeBackupFailed"
	// ReasonUpgrading means CloudNativePG runs pg_upgrade: every
	// instance is stopped until the Job ends, then the replicas are
	// cloned again. What to do: wait; applications reconnect by
	// themselves afterwards.
	ReasonUpgrading = "Upgrading"
	// ReasonUpgradeAnalyzing means the new major runs and each database
	// is being analyzed as its owner (pg_upgrade keeps no planner
	// statistics). What to do: wait.
	ReasonUpgradeAnalyzing = "UpgradeAnalyzing"
	// ReasonUpgradeSucceeded means the cluster runs the new major, as
	// Postgres itself reports, and every database was analyzed; True.
	// What to do: take a new base backup soon if none is scheduled:
	// backups of the old major cannot be replayed across it.
	ReasonUpgradeSucceeded = "UpgradeSucceeded"
	// ReasonUpgradeFailed means CloudNativePG's pg_upgrade Job failed
	// (its message is quoted). pg_upgrade left the old data directory
	// untouched, and setpoint pointed the CNPG Cluster back at the old
	// major's image, so the cluster runs the old major again. What to
	// do: read the Job's log (the message names the command), fix the
	// cause, then set postgres.setpoint.dev/retry-upgrade to a new value.
	ReasonUpgradeFailed = "UpgradeFailed"
)
