package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// UpgradePhase is where a major upgrade stands.
// +kubebuilder:validation:Enum=Preflight;BackingUp;Upgrading;Analyzing;Succeeded;Failed
type UpgradePhase string

// A major upgrade's phases, in the order it walks them. Preflight and
// BackingUp change nothing: the CNPG Cluster keeps the image its data
// last ran on until both are done. Failed is the end of an attempt
// that CloudNativePG's pg_upgrade could not finish, or whose backup
// failed.
const (
	UpgradePreflight UpgradePhase = "Preflight"
	UpgradeBackingUp UpgradePhase = "BackingUp"
	UpgradeUpgrading UpgradePhase = "Upgrading"
	UpgradeAnalyzing UpgradePhase = "Analyzing"
	UpgradeSucceeded UpgradePhase = "Succeeded"
	UpgradeFailed    UpgradePhase = "Failed"
)

// InProgress: the upgrade has started and not ended.
func (p UpgradePhase) InProgress() bool {
	return p != "" && p != UpgradeSucceeded && p != UpgradeFailed
}

// MajorUpgradeStatus is the record of the cluster's last major upgrade
// (docs/guides/upgrading.md). setpoint reads it back only to resume the
// upgrade where it stood; the intent is spec.postgresVersion.
type MajorUpgradeStatus struct {
	// from is the major the data ran on before the upgrade.
	From int32 `json:"from"`
	// to is the major the upgrade goes to.
	To int32 `json:"to"`
	// phase is where the upgrade stands.
	Phase UpgradePhase `json:"phase"`
	// startTime is when the upgrade was first seen.
	StartTime metav1.Time `json:"startTime"`
	// lastTransitionTime is when the phase last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`
	// backup names the CNPG Backup taken before the upgrade; empty when
	// the upgrade was acknowledged to run without one.
	// +optional
	Backup string `json:"backup,omitempty"`
	// message says what the current phase waits for, or what stopped
	// the upgrade and what to do.
	// +optional
	Message string `json:"message,omitempty"`
	// serverVersion is the version Postgres reports (server_version)
	// once the upgrade has run.
	// +optional
	ServerVersion string `json:"serverVersion,omitempty"`
	// retryRequest is the value of the retry-upgrade annotation this
	// attempt answered; a new value starts a new attempt after Failed.
	// +optional
	RetryRequest string `json:"retryRequest,omitempty"`
}

// UpgradeWithoutBackupAnnotation on a PostgresCluster without an object
// store lets a major upgrade start without a backup. Its value is the
// major it allows ("17"), so an acknowledgement given for one upgrade
// does not carry over to the next.
const UpgradeWithoutBackupAnnotation = "postgres.setpoint.dev/upgrade-without-backup"

// RetryUpgradeAnnotation on a PostgresCluster whose major upgrade Failed
// starts a new attempt, from the preflight on. Its value is any request
// id; a new value is a new attempt.
const RetryUpgradeAnnotation = "postgres.setpoint.dev/retry-upgrade"
