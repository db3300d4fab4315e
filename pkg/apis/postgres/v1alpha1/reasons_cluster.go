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
	// ReasonDeleting means the PostgresCluster is being deleted, with its
	// clusterDeletionPolicy (the message names it). What to do: wait:
	// setpoint deletes the CNPG Cluster and its children; with Retain,
	// the CNPG Cluster and its data stay.
	ReasonDeleting = "Deleting"
	// ReasonClassNotFound means spec.class names a PostgresClusterClass
	// that does not exist. What to do: create the PostgresClusterClass
	// that spec.class names (spec.class is immutable: to use another
	// class, create the PostgresCluster again).
	ReasonClassNotFound = "ClassNotFound"
	// ReasonSuperuserSecretWithoutAccess means
	// passwordConfig.superuserExternalSecretRef names a Secret while
	// superuserAccess is false (from the class or the cluster). What to
	// do: an external superuser Secret needs superuserAccess: set
	// superuserAccess: true, or remove
	// passwordConfig.superuserExternalSecretRef.
	ReasonSuperuserSecretWithoutAccess = "SuperuserAccessOff"
	// ReasonBackupTargetMissing means backup.schedule is set with neither
	// backup.objectStore.destinationPath nor backup.volumeSnapshotClass.
	// What to do: set backup.objectStore.destinationPath or
	// backup.volumeSnapshotClass (in the cluster or its class), or remove
	// backup.schedule.
	ReasonBackupTargetMissing = "BackupTargetMissing"
	// ReasonInvalidSchedule means backup.schedule is not a five-field
	// cron expression. What to do: write backup.schedule as five cron
	// fields: minute hour day-of-month month day-of-week (0 2 * * * is
	// 02:00 every day).
	ReasonInvalidSchedule = "InvalidSchedule"
	// ReasonBackupCredentialsMissing means an object store is set without
	// a credential form (an object stored before the CRD refused that).
	// What to do: give backup.objectStore one: credentialsSecretName (a
	// Secret with keys ACCESS_KEY_ID and ACCESS_SECRET_KEY),
	// s3Credentials, azureCredentials or googleCredentials.
	ReasonBackupCredentialsMissing = "BackupCredentialsMissing"
	// ReasonParameterNotAllowed means postgresqlConfig sets a parameter
	// CloudNativePG manages itself (the message names it). What to do:
	// CloudNativePG manages that parameter: remove it from
	// postgresqlConfig (in the cluster or its class).
	ReasonParameterNotAllowed = "ParameterNotAllowed"
	// ReasonRestoreTargetInFuture means restore.targetTime is later than
	// the cluster's creation: no backup or WAL can exist for it. What to
	// do: spec.restore is immutable, so delete the PostgresCluster and
	// create it again with a restore.targetTime in the past, or without
	// one.
	ReasonRestoreTargetInFuture = "RestoreTargetInFuture"
	// ReasonDowngradeRefused means postgresVersion is below the major
	// version the CNPG Cluster runs: Postgres cannot go down a major
	// version. What to do: set postgresVersion back to the running major
	// version or higher, in the cluster or its class.
	ReasonDowngradeRefused = "DowngradeRefused"
	// ReasonImageMajorMismatch means postgresVersion is set (in the
	// cluster or its class) and imageName's tag starts with another major:
	// the image decides what runs, so postgresVersion would say one major
	// while Postgres runs another, and raising it would upgrade nothing.
	// What to do: give imageName a tag of the postgresVersion major, or
	// set the major in imageName alone (remove postgresVersion), or use an
	// image catalog, whose image follows postgresVersion.
	ReasonImageMajorMismatch = "ImageMajorMismatch"
	// ReasonStorageShrinkRefused means storage.size is below the size the
	// volumes already have: a volume cannot shrink. What to do: set
	// storage.size back to the volumes' size or more, in the cluster or
	// its class.
	ReasonStorageShrinkRefused = "StorageShrinkRefused"
	// ReasonAutoGrowLimitMissing means storage.autoGrow is enabled while
	// neither the class nor the cluster sets autoGrow.limit. What to do:
	// set storage.autoGrow.limit (in the cluster or its class), or
	// disable storage.autoGrow.
	ReasonAutoGrowLimitMissing = "AutoGrowLimitMissing"
	// ReasonAutoGrowInvalid means a storage.autoGrow setting is out of
	// range: the threshold must be 1 to 99 %, the cooldown at least 1s
	// (the message says which). What to do: fix the storage.autoGrow
	// setting the message names, in the cluster or its class.
	ReasonAutoGrowInvalid = "AutoGrowInvalid"
	// ReasonDurabilityInvalid means durability Synchronous asks at least
	// as many standbys as the cluster has (instances minus the primary),
	// the two coming from the class and the cluster. What to do: raise
	// instances above durability.standbys, or lower durability.standbys,
	// in the cluster or its class.
	ReasonDurabilityInvalid = "DurabilityInvalid"
)
