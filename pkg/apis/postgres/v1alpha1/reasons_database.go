package v1alpha1

// Ready of PostgresDatabase
//
// Ready's own reasons; while a step is not done, Ready carries that
// step's reason instead (see the tables of its condition).
const (
	// ReasonAllReady means every database, role, credential and
	// privilege is in place: the PostgresDatabase is Ready. What to do:
	// nothing.
	ReasonAllReady = "AllReady"
	// ReasonInvalidName means a database or role name in the spec cannot
	// be used (the message says why); the phase is Failed until the
	// spec changes. What to do: fix the name.
	ReasonInvalidName = "InvalidName"
)

// Removal and deletion of PostgresDatabase
//
// Ready, while a database removed from the spec or the read-only role
// is taken away (phase Provisioning), or while the PostgresDatabase is
// deleted (phase Deleting), with its deletionPolicy.
const (
	// ReasonReleaseFailed means letting go of an object kept by the
	// Retain policy (removing setpoint's ownership) failed; it is retried
	// with backoff. What to do: if it persists, read the message.
	ReasonReleaseFailed = "ReleaseFailed"
	// ReasonDatabaseDeleteFailed means deleting a CNPG Database failed;
	// it is retried with backoff. What to do: if it persists, read the
	// message.
	ReasonDatabaseDeleteFailed = "DatabaseDeleteFailed"
	// ReasonSecretDeleteFailed means deleting a credentials Secret
	// failed; it is retried with backoff. What to do: if it persists,
	// read the message.
	ReasonSecretDeleteFailed = "SecretDeleteFailed"
	// ReasonRoleDeleteFailed means deleting a DatabaseRole failed; it is
	// retried with backoff. What to do: if it persists, read the
	// message.
	ReasonRoleDeleteFailed = "RoleDeleteFailed"
	// ReasonRoleCleanupPending means CloudNativePG has not dropped a role
	// yet. What to do: wait.
	ReasonRoleCleanupPending = "RoleCleanupPending"
	// ReasonRoleCleanupBlocked means a role cannot be dropped, or has
	// waited long: it still owns objects or has privileges, or the
	// PostgresCluster is not Ready (the message says which). What to
	// do: fix what the message names.
	ReasonRoleCleanupBlocked = "RoleCleanupBlocked"
	// ReasonDatabaseCleanupPending means CloudNativePG has not dropped a
	// database yet. What to do: wait.
	ReasonDatabaseCleanupPending = "DatabaseCleanupPending"
	// ReasonDatabaseCleanupBlocked means a database has waited long to be
	// dropped, often because the PostgresCluster is not Ready (the
	// message says). What to do: fix what the message names.
	ReasonDatabaseCleanupBlocked = "DatabaseCleanupBlocked"
)

// ClusterReady of PostgresDatabase
const (
	// ReasonClusterReady means the PostgresCluster is Ready. What to do:
	// nothing.
	ReasonClusterReady = "ClusterReady"
	// ReasonClusterNotFound means spec.clusterRef names no
	// PostgresCluster. What to do: create it, or fix the reference.
	ReasonClusterNotFound = "ClusterNotFound"
	// ReasonClusterDeleting means the PostgresCluster is being deleted.
	// What to do: nothing; move the database elsewhere if it should
	// live on.
	ReasonClusterDeleting = "ClusterDeleting"
	// ReasonClusterFailed means the PostgresCluster is Failed (its
	// reason and message are quoted). What to do: fix the cluster.
	ReasonClusterFailed = "ClusterFailed"
	// ReasonClusterNotReady means the PostgresCluster is not Ready yet.
	// What to do: wait, or look at the cluster's Ready condition.
	ReasonClusterNotReady = "ClusterNotReady"
)

// SecretsReady of PostgresDatabase
const (
	// ReasonSecretsReady means every role's credentials are in place.
	// What to do: nothing.
	ReasonSecretsReady = "SecretsReady"
	// ReasonSecretCreateFailed means creating a generated credentials
	// Secret failed; it is retried with backoff. What to do: if it
	// persists, read the message.
	ReasonSecretCreateFailed = "SecretCreateFailed"
	// ReasonSecretAdoptFailed means taking over a retained credentials
	// Secret failed; it is retried with backoff. What to do: if it
	// persists, read the message.
	ReasonSecretAdoptFailed = "SecretAdoptFailed"
	// ReasonSecretInvalid means a generated credentials Secret was
	// changed and is no longer usable (the message says how). What to
	// do: fix or delete the Secret; a deleted one is created again.
	ReasonSecretInvalid = "SecretInvalid"
	// ReasonExternalSecretNotFound means an external Secret named for a
	// role does not exist. What to do: create it, or fix the reference.
	ReasonExternalSecretNotFound = "ExternalSecretNotFound"
	// ReasonExternalSecretInvalid means an external Secret for a role
	// lacks what it needs (the message says what). What to do: fix the
	// Secret.
	ReasonExternalSecretInvalid = "ExternalSecretInvalid"
	// ReasonPasswordRotationFailed means writing a rotated password
	// failed; it is retried with backoff. What to do: if it persists,
	// read the message.
	ReasonPasswordRotationFailed = "PasswordRotationFailed"
	// ReasonReloadLabelFailed means labelling an external Secret with
	// cnpg.io/reload (passwordConfig.reloadOnChange) failed; it is
	// retried with backoff. What to do: if it persists, read the message.
	ReasonReloadLabelFailed = "ReloadLabelFailed"
)

// ConfigMapsReady of PostgresDatabase
const (
	// ReasonConfigMapsReady means every database's connection ConfigMap
	// is written. What to do: nothing.
	ReasonConfigMapsReady = "ConfigMapsReady"
	// ReasonConfigMapWriteFailed means writing a connection ConfigMap
	// failed; it is retried with backoff. What to do: if it persists,
	// read the message.
	ReasonConfigMapWriteFailed = "ConfigMapWriteFailed"
)

// RolesReady of PostgresDatabase
const (
	// ReasonRolesReconciled means CloudNativePG applied every role. What
	// to do: nothing.
	ReasonRolesReconciled = "RolesReconciled"
	// ReasonRolesPending means CloudNativePG has not applied every role
	// yet, or a previous DatabaseRole is being deleted. What to do: wait.
	ReasonRolesPending = "RolesPending"
	// ReasonRolesMigrating means the PostgresCluster is moving a role
	// from the CNPG Cluster's spec.managed.roles to a DatabaseRole. What
	// to do: wait; if someone applied that list since, remove the entry
	// there.
	ReasonRolesMigrating = "RolesMigrating"
	// ReasonRolePrivilegesReverted means someone gave one of setpoint's
	// roles an attribute that bears privilege on its DatabaseRole
	// (superuser, createrole, inRoles, ...); setpoint took it back and
	// waits for CloudNativePG to apply the role unprivileged again. What
	// to do: find who edited the DatabaseRole (its managedFields); give
	// privileges through the database's spec, never by hand.
	ReasonRolePrivilegesReverted = "RolePrivilegesReverted"
	// ReasonRoleNotApplied means CloudNativePG could not apply a role
	// (its message is quoted); it retries. What to do: fix what it
	// names.
	ReasonRoleNotApplied = "RoleNotApplied"
	// ReasonRoleCertificatePending means CloudNativePG has not issued the
	// TLS client certificate of a role of a database with
	// authentication: certificate yet. What to do: wait.
	ReasonRoleCertificatePending = "RoleCertificatePending"
	// ReasonRoleCertificateNotIssued means CloudNativePG reports why it
	// cannot issue a role's client certificate (quoted), e.g. a cluster
	// whose client CA has no private key, or a same-named Secret that is
	// not its own. What to do: fix what it names.
	ReasonRoleCertificateNotIssued = "RoleCertificateNotIssued"
	// ReasonRoleConflict means a role is managed by someone else: in the
	// CNPG Cluster's spec.managed.roles, or by a DatabaseRole setpoint
	// did not create for this object. What to do: remove it there, or
	// use another database name.
	ReasonRoleConflict = "RoleConflict"
	// ReasonRoleExists means Postgres already has a role of that name
	// that setpoint did not create. What to do: drop or rename it, or
	// adopt it with spec.adoptFrom.
	ReasonRoleExists = "RoleExists"
	// ReasonRoleUnverified means setpoint could not check in Postgres
	// whether a role exists; it tries again. What to do: wait.
	ReasonRoleUnverified = "RoleUnverified"
	// ReasonRoleCreateFailed means creating a DatabaseRole failed; it is
	// retried with backoff. What to do: if it persists, read the message.
	ReasonRoleCreateFailed = "RoleCreateFailed"
	// ReasonRoleApplyFailed means writing a DatabaseRole failed; it is
	// retried with backoff. What to do: if it persists, read the message.
	ReasonRoleApplyFailed = "RoleApplyFailed"
)

// DatabasesReady of PostgresDatabase
const (
	// ReasonDatabasesApplied means CloudNativePG applied every database.
	// What to do: nothing.
	ReasonDatabasesApplied = "DatabasesApplied"
	// ReasonDatabaseApplying means CloudNativePG has not applied a CNPG
	// Database yet. What to do: wait.
	ReasonDatabaseApplying = "DatabaseApplying"
	// ReasonDatabaseNotApplied means CloudNativePG could not apply a
	// database yet (its message is quoted). What to do: fix what it
	// names.
	ReasonDatabaseNotApplied = "DatabaseNotApplied"
	// ReasonDatabaseDeleting means a previous CNPG Database of that name
	// is being deleted. What to do: wait.
	ReasonDatabaseDeleting = "DatabaseDeleting"
	// ReasonDatabaseConflict means a CNPG Database of that name exists
	// that setpoint did not create. What to do: delete or rename it.
	ReasonDatabaseConflict = "DatabaseConflict"
	// ReasonDatabaseExists means Postgres already has a database of that
	// name that setpoint did not create. What to do: drop or rename it,
	// or adopt it with spec.adoptFrom.
	ReasonDatabaseExists = "DatabaseExists"
	// ReasonDatabaseUnverified means setpoint could not check in Postgres
	// whether a database exists; it tries again. What to do: wait.
	ReasonDatabaseUnverified = "DatabaseUnverified"
	// ReasonDatabaseApplyFailed means writing a CNPG Database failed; it
	// is retried with backoff. What to do: if it persists, read the
	// message.
	ReasonDatabaseApplyFailed = "DatabaseApplyFailed"
)

// PrivilegesReady of PostgresDatabase
const (
	// ReasonPrivilegesIsolated means every role has its privileges and
	// each database is closed to every other role: PUBLIC may neither
	// connect to it, create temporary tables in it nor create in its
	// schema public. What to do: nothing.
	ReasonPrivilegesIsolated = "PrivilegesIsolated"
	// ReasonAdminUnavailable means setpoint cannot log in as a
	// database's admin role to grant privileges (the error is quoted);
	// it tries again. What to do: wait; if it lasts, read the message.
	ReasonAdminUnavailable = "AdminUnavailable"
	// ReasonGrantFailed means granting privileges failed (the error is
	// quoted); it tries again. What to do: read the message.
	ReasonGrantFailed = "GrantFailed"
)
