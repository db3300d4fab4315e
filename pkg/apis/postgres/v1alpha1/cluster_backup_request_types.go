package v1alpha1

// BackupRequestAnnotation on a PostgresCluster asks for one on-demand
// backup: its value is a request id of the caller's choosing (a timestamp,
// a ticket number). Each new value creates one CloudNativePG Backup,
// <cluster>-backup-<10 hex digits of the id's SHA-256>, once; the id
// handled last is in status.backupStatus.lastRequest. Setting the same
// value again does nothing.
const BackupRequestAnnotation = "postgres.setpoint.dev/backup-request"

// BackupRequestStatus is the last on-demand backup request handled.
type BackupRequestStatus struct {
	// id is the annotation's value.
	ID string `json:"id"`
	// backup names the CloudNativePG Backup created for it; empty when
	// none could be (see message).
	// +optional
	Backup string `json:"backup,omitempty"`
	// message says why no Backup was created.
	// +optional
	Message string `json:"message,omitempty"`
}
