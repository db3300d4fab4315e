package v1alpha1

// Any condition of both kinds
//
// Reasons a component of PostgresCluster or a step of PostgresDatabase
// can carry. A stage that gives no reason of its own carries its phase
// as the reason (Ready, Pending, Provisioning, Configuring, Deleting or
// Failed).
const (
	// ReasonBlocked means an earlier stage of the pipeline is not done,
	// so this one waits; the message names it. What to do: look at that
	// earlier condition.
	ReasonBlocked = "Blocked"
	// ReasonWaitingForGarbageCollection means a child of a deleted
	// object of the same name is still there; the garbage collector
	// removes it shortly. What to do: wait.
	ReasonWaitingForGarbageCollection = "WaitingForGarbageCollection"
	// ReasonSecretConflict means a Secret of the name setpoint would
	// write exists and is not setpoint's; setpoint leaves it untouched
	// (SecretReady of PostgresCluster, SecretsReady of PostgresDatabase).
	// What to do: delete or rename it.
	ReasonSecretConflict = "SecretConflict"
	// ReasonConfigMapConflict means a ConfigMap of the name setpoint
	// would write exists and is not setpoint's; setpoint leaves it
	// untouched (ConfigMapReady, ConfigMapsReady). What to do: delete or
	// rename it.
	ReasonConfigMapConflict = "ConfigMapConflict"
	// ReasonMonitorUnavailable means setpoint cannot log in as the
	// cluster's monitor role to check Postgres (RolesReady and
	// DatabasesReady of PostgresDatabase); it tries again. What to do:
	// look at the PostgresCluster's MonitorReady.
	ReasonMonitorUnavailable = "MonitorUnavailable"
)

// PasswordRotation of both kinds
//
// The rotation asked for by the rotate-passwords annotation.
const (
	// ReasonRotated means every password the request selects is rotated;
	// True. What to do: nothing; clients pick the new password up from
	// the Secret.
	ReasonRotated = "Rotated"
	// ReasonRotationPending means some selected passwords are not
	// rotated yet. What to do: wait.
	ReasonRotationPending = "RotationPending"
	// ReasonExternalSecretNotRotated means a selected password lives in
	// an external Secret, which setpoint never writes. What to do:
	// rotate it in that Secret yourself.
	ReasonExternalSecretNotRotated = "ExternalSecretNotRotated"
	// ReasonNoSuperuserPassword means superuser access is off, so there
	// is no superuser password to rotate (PostgresCluster); True. What
	// to do: nothing.
	ReasonNoSuperuserPassword = "NoSuperuserPassword"
	// ReasonUnknownRoles means the roles annotation names a role that is
	// neither a kind (admin, rw, ro) nor a role of this PostgresDatabase.
	// What to do: fix the annotation.
	ReasonUnknownRoles = "UnknownRoles"
	// ReasonNoRoleSelected means the request selects no role with a
	// generated password (PostgresDatabase). What to do: fix the roles
	// annotation, or rotate external Secrets yourself.
	ReasonNoRoleSelected = "NoRoleSelected"
)
