package v1alpha1

// Ready of PostgresCluster
//
// Ready's own reasons; while a component is not done, Ready carries
// that component's reason instead (see the tables of its condition).
// The reasons of an invalid spec stop the pipeline before any write:
// the phase is Failed until the PostgresCluster or its class changes.
const (
	// ReasonAllComponentsReady means every component is done: the
	// cluster is Ready. What to do: nothing.
	ReasonAllComponentsReady = "AllComponentsReady"
	// ReasonDeleting means the PostgresCluster is being deleted, with
	// its clusterDeletionPolicy (the message names it). What to do:
	// wait; with Retain, the CNPG Cluster and its data stay.
	ReasonDeleting = "Deleting"
	// ReasonClassNotFound means spec.class names a PostgresClusterClass
	// that does not exist. What to do: create the class, or fix
	// spec.class.
	ReasonClassNotFound = "ClassNotFound"
	// ReasonSuperuserSecretWithoutAccess means
	// passwordConfig.superuserExternalSecretRef names a Secret while
	// superuserAccess is false (from the class or the cluster). What to
	// do: set superuserAccess: true, or remove the reference.
	ReasonSuperuserSecretWithoutAccess = "SuperuserAccessOff"
	// ReasonBackupTargetMissing means backup.schedule is set with
	// neither backup.objectStore.destinationPath nor
	// backup.volumeSnapshotClass. What to do: set one of them, or remove
	// the schedule.
	ReasonBackupTargetMissing = "BackupTargetMissing"
	// ReasonInvalidSchedule means backup.schedule is not a five-field
	// cron expression. What to do: write it as minute hour day-of-month
	// month day-of-week.
	ReasonInvalidSchedule = "InvalidSchedule"
	// ReasonBackupCredentialsMissing means an object store is set
	// without backup.objectStore.credentialsSecretName. What to do:
	// name the Secret with the object store's credentials.
	ReasonBackupCredentialsMissing = "BackupCredentialsMissing"
	// ReasonParameterNotAllowed means postgresqlConfig sets a parameter
	// CloudNativePG manages itself (the message names it). What to do:
	// remove it from postgresqlConfig.
	ReasonParameterNotAllowed = "ParameterNotAllowed"
	// ReasonRestoreTargetInFuture means restore.targetTime is later than
	// the cluster's creation: no backup or WAL can exist for it. What to
	// do: spec.restore is immutable, so delete the PostgresCluster and
	// create it with a targetTime in the past, or without one.
	ReasonRestoreTargetInFuture = "RestoreTargetInFuture"
	// ReasonDowngradeRefused means postgresVersion is below the major
	// version the CNPG Cluster runs: Postgres cannot go down a major
	// version. What to do: set the running version or higher, or
	// restore the class.
	ReasonDowngradeRefused = "DowngradeRefused"
	// ReasonStorageShrinkRefused means storage.size is below the size
	// the volumes already have: a volume cannot shrink. What to do: set
	// the current size or more.
	ReasonStorageShrinkRefused = "StorageShrinkRefused"
	// ReasonAutoGrowLimitMissing means storage.autoGrow is enabled
	// while neither the class nor the cluster sets autoGrow.limit. What
	// to do: set a limit.
	ReasonAutoGrowLimitMissing = "AutoGrowLimitMissing"
	// ReasonAutoGrowInvalid means a storage.autoGrow setting is out of
	// range: the threshold must be 1 to 99 %, the cooldown at least 1s
	// (the message says which). What to do: fix that setting.
	ReasonAutoGrowInvalid = "AutoGrowInvalid"
)
