package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Backup is CNPG's request for one base backup of a Cluster.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Backup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BackupSpec   `json:"spec"`
	Status BackupStatus `json:"status,omitempty"`
}

// BackupSpec is the subset of CNPG's backup spec setpoint sets. CNPG
// makes the whole spec immutable once set.
type BackupSpec struct {
	Cluster             LocalObjectReference       `json:"cluster"`
	Method              string                     `json:"method,omitempty"`
	PluginConfiguration *BackupPluginConfiguration `json:"pluginConfiguration,omitempty"`
	Online              *bool                      `json:"online,omitempty"`
	Target              string                     `json:"target,omitempty"`
}

// Backup phases CNPG reports (status.phase).
const (
	BackupPhasePending   = "pending"
	BackupPhaseStarted   = "started"
	BackupPhaseRunning   = "running"
	BackupPhaseCompleted = "completed"
	BackupPhaseFailed    = "failed"
)

// BackupStatus is the subset of CNPG's backup status setpoint reads.
type BackupStatus struct {
	Phase           string       `json:"phase,omitempty"`
	Error           string       `json:"error,omitempty"`
	Method          string       `json:"method,omitempty"`
	Online          *bool        `json:"online,omitempty"`
	StartedAt       *metav1.Time `json:"startedAt,omitempty"`
	StoppedAt       *metav1.Time `json:"stoppedAt,omitempty"`
	BeginWal        string       `json:"beginWal,omitempty"`
	EndWal          string       `json:"endWal,omitempty"`
	BeginLSN        string       `json:"beginLSN,omitempty"`
	EndLSN          string       `json:"endLSN,omitempty"`
	BackupID        string       `json:"backupId,omitempty"`
	BackupName      string       `json:"backupName,omitempty"`
	ServerName      string       `json:"serverName,omitempty"`
	DestinationPath string       `json:"destinationPath,omitempty"`
	MajorVersion    int          `json:"majorVersion,omitempty"`
}

// BackupList is a list of Backups.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type BackupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Backup `json:"items"`
}
