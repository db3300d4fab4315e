package v1alpha1

// Conditions of PostgresCluster with backups to object storage
//
// Present only while backup.objectStore is set. Backup health never
// changes the phase: a cluster whose archiving fails still serves, so it
// stays Ready, and `kubectl get pgc` shows this condition's reason in its
// Backup column (docs/adr/0003-backup-health-does-not-fail-ready.md).
const (
	// ConditionBackupHealthy is True while WAL archiving works and the
	// last base backup succeeded in time; False with the cause while
	// either fails; Unknown until the first WAL file is archived.
	// What to do: when False, see its reason; alert on it.
	ConditionBackupHealthy = "BackupHealthy"
)

// BackupHealthy of PostgresCluster
//
// Read from CloudNativePG's ContinuousArchiving and LastBackupSucceeded
// conditions on the CNPG Cluster, the barman-cloud plugin's recovery
// window in the ObjectStore, and the schedule. The first cause that holds,
// in this order, is the reason.
const (
	// ReasonBackupsHealthy means WAL archiving works and no base backup
	// is failed or overdue; True. What to do: nothing.
	ReasonBackupsHealthy = "BackupsHealthy"
	// ReasonArchivingPending means no WAL file has been archived yet, so
	// whether archiving works is Unknown. What to do: wait: CloudNativePG
	// archives a new cluster's first WAL file within a minute; if it does
	// not, look at the CNPG Cluster's ContinuousArchiving condition.
	ReasonArchivingPending = "ArchivingPending"
	// ReasonArchivingFailing means CloudNativePG reports WAL archiving
	// failing (ContinuousArchiving False, its message quoted); False. The
	// recovery window stops moving and WAL piles up on the volume. What
	// to do: fix what CloudNativePG's message names (often a Secret that
	// backup.objectStore's credentials name, the cloud identity of an
	// identity form, the endpoint, its CA or the bucket); archiving
	// resumes by itself.
	ReasonArchivingFailing = "ArchivingFailing"
	// ReasonLastBackupFailed means the last base backup failed
	// (CloudNativePG's LastBackupSucceeded False, or the ObjectStore's
	// lastFailedBackupTime after its lastSuccessfulBackupTime); False.
	// What to do: read the message and the failed Backup's status.error
	// (kubectl get backups -l cnpg.io/cluster=<cluster>), fix the cause,
	// then take a backup with kubectl setpoint backup.
	ReasonLastBackupFailed = "LastBackupFailed"
	// ReasonBackupOverdue means the schedule fired and no base backup
	// succeeded since, longer ago than the slack (the schedule's period,
	// at least 5 minutes and at most an hour); False. What to do: look at
	// the ScheduledBackup <cluster>-backup and its latest Backups
	// (kubectl get backups -l cnpg.io/cluster=<cluster>).
	ReasonBackupOverdue = "BackupOverdue"
)

// Events of PostgresCluster backup health
//
// One Event when BackupHealthy turns False or changes its cause, and one
// when it turns True again: never one per pass.
const (
	// EventBackupsFailing says BackupHealthy turned False, naming the
	// cause (Warning). What to do: see the BackupHealthy condition's
	// reason.
	EventBackupsFailing = "BackupsFailing"
	// EventBackupsRecovered says BackupHealthy is True again (Normal).
	// What to do: nothing.
	EventBackupsRecovered = "BackupsRecovered"
)
