package v1alpha1

// Any condition of both kinds
//
// Reasons a component of PostgresCluster or a step of PostgresDatabase
// can carry. A stage that gives no reason of its own carries its phase
// as the reason (Ready, Pending, Provisioning, Configuring, Deleting or
// Failed).
const (
	// ReasonBlocked means an earlier stage of the pipeline is not done,
	// so this one waits; the message names it. What to do: look at the
	// earlier condition the message names; its reason says what to do.
	ReasonBlocked = "Blocked"
	// ReasonWaitingForGarbageCollection means a child of a deleted object
	// of the same name is still there; the garbage collector removes it
	// shortly. What to do: wait: Kubernetes' garbage collector removes
	// the old child shortly; if it lasts, look at that child's
	// finalizers.
	ReasonWaitingForGarbageCollection = "WaitingForGarbageCollection"
	// ReasonSecretConflict means a Secret of the name setpoint would
	// write exists and is not setpoint's; setpoint leaves it untouched
	// (SecretReady of PostgresCluster, SecretsReady of PostgresDatabase).
	// What to do: delete that Secret or rename it (the message names it;
	// setpoint never takes over an object it did not create), or create
	// the PostgresCluster or PostgresDatabase under another name.
	ReasonSecretConflict = "SecretConflict"
	// ReasonConfigMapConflict means a ConfigMap of the name setpoint
	// would write exists and is not setpoint's; setpoint leaves it
	// untouched (ConfigMapReady, ConfigMapsReady). What to do: delete
	// that ConfigMap or rename it (the message names it; setpoint never
	// takes over an object it did not create), or create the
	// PostgresCluster or PostgresDatabase under another name.
	ReasonConfigMapConflict = "ConfigMapConflict"
	// ReasonMonitorUnavailable means setpoint cannot log in as the
	// cluster's monitor role to check Postgres (RolesReady and
	// DatabasesReady of PostgresDatabase); it tries again. What to do:
	// wait: setpoint tries again; if it lasts, look at the
	// PostgresCluster's MonitorReady and PostgresUnreachable.
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
	// ReasonRotationPending means some selected passwords are not rotated
	// yet. What to do: wait: setpoint is writing the new passwords.
	ReasonRotationPending = "RotationPending"
	// ReasonExternalSecretNotRotated means a selected password lives in
	// an external Secret, which setpoint never writes. What to do: that
	// Secret is yours and setpoint never writes it: rotate the password
	// in it yourself.
	ReasonExternalSecretNotRotated = "ExternalSecretNotRotated"
	// ReasonNoSuperuserPassword means superuser access is off, so there
	// is no superuser password to rotate (PostgresCluster); True. What
	// to do: nothing.
	ReasonNoSuperuserPassword = "NoSuperuserPassword"
	// ReasonUnknownRoles means the roles annotation names a role that is
	// neither a kind (admin, rw, ro) nor a role of this PostgresDatabase.
	// What to do: fix the rotate-passwords-roles annotation: kinds admin,
	// rw and ro, or role names of this PostgresDatabase.
	ReasonUnknownRoles = "UnknownRoles"
	// ReasonNoRoleSelected means the request selects no role with a
	// generated password (PostgresDatabase). What to do: fix the
	// rotate-passwords-roles annotation (kinds admin, rw and ro, or role
	// names), or rotate external Secrets yourself.
	ReasonNoRoleSelected = "NoRoleSelected"
)
