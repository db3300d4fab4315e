package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ScheduledBackup is CNPG's backup schedule.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type ScheduledBackup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ScheduledBackupSpec   `json:"spec"`
	Status ScheduledBackupStatus `json:"status,omitempty"`
}

// Backup methods.
const (
	BackupMethodVolumeSnapshot = "volumeSnapshot"
	BackupMethodPlugin         = "plugin"
)

// ScheduledBackupSpec is the subset of CNPG's schedule setpoint sets.
type ScheduledBackupSpec struct {
	// schedule has SIX fields, seconds first.
	Schedule             string                     `json:"schedule"`
	Cluster              LocalObjectReference       `json:"cluster"`
	Method               string                     `json:"method,omitempty"`
	PluginConfiguration  *BackupPluginConfiguration `json:"pluginConfiguration,omitempty"`
	Immediate            *bool                      `json:"immediate,omitempty"`
	Suspend              *bool                      `json:"suspend,omitempty"`
	BackupOwnerReference string                     `json:"backupOwnerReference,omitempty"`
	Target               string                     `json:"target,omitempty"`
}

// BackupPluginConfiguration names the plugin that takes the backup.
type BackupPluginConfiguration struct {
	Name       string            `json:"name"`
	Parameters map[string]string `json:"parameters,omitempty"`
}

// ScheduledBackupStatus is what CNPG reports of a schedule.
type ScheduledBackupStatus struct {
	LastCheckTime    *metav1.Time `json:"lastCheckTime,omitempty"`
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
	NextScheduleTime *metav1.Time `json:"nextScheduleTime,omitempty"`
	Error            string       `json:"error,omitempty"`
}

// ScheduledBackupList is a list of ScheduledBackups.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type ScheduledBackupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ScheduledBackup `json:"items"`
}
