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
	// be used (the message says why); the phase is Failed until the spec
	// changes. What to do: fix the name the message names: shorten a
	// database name whose role or object name is too long or invalid;
	// when another PostgresDatabase would use the same objects (the
	// message names it), rename one of them.
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
	// with backoff. What to do: wait: setpoint retries with backoff; if
	// it persists, the message quotes the API server's error (a verb
	// setpoint's RBAC lacks, an admission webhook, a quota) to fix.
	ReasonReleaseFailed = "ReleaseFailed"
	// ReasonDatabaseDeleteFailed means deleting a CNPG Database failed;
	// it is retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonDatabaseDeleteFailed = "DatabaseDeleteFailed"
	// ReasonSecretDeleteFailed means deleting a credentials Secret
	// failed; it is retried with backoff. What to do: wait: setpoint
	// retries with backoff; if it persists, the message quotes the API
	// server's error (a verb setpoint's RBAC lacks, an admission webhook,
	// a quota) to fix.
	ReasonSecretDeleteFailed = "SecretDeleteFailed"
	// ReasonRoleDeleteFailed means deleting a DatabaseRole failed; it is
	// retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonRoleDeleteFailed = "RoleDeleteFailed"
	// ReasonRoleCleanupPending means CloudNativePG has not dropped a role
	// yet. What to do: wait: CloudNativePG is dropping the role.
	ReasonRoleCleanupPending = "RoleCleanupPending"
	// ReasonRoleCleanupBlocked means a role cannot be dropped, or has
	// waited long: it still owns objects or has privileges, or the
	// PostgresCluster is not Ready (the message says which). What to do:
	// fix what the message names: drop or reassign what the role still
	// owns or holds in Postgres, or make the PostgresCluster Ready again.
	ReasonRoleCleanupBlocked = "RoleCleanupBlocked"
	// ReasonDatabaseCleanupPending means CloudNativePG has not dropped a
	// database yet. What to do: wait: CloudNativePG is dropping the
	// database.
	ReasonDatabaseCleanupPending = "DatabaseCleanupPending"
	// ReasonDatabaseCleanupBlocked means a database has waited long to be
	// dropped, often because the PostgresCluster is not Ready (the
	// message says). What to do: fix what the message names, often the
	// PostgresCluster, which must be Ready; or drop the database
	// yourself.
	ReasonDatabaseCleanupBlocked = "DatabaseCleanupBlocked"
)

// ClusterReady of PostgresDatabase
const (
	// ReasonClusterReady means the PostgresCluster is Ready. What to do:
	// nothing.
	ReasonClusterReady = "ClusterReady"
	// ReasonClusterUpgrading means the PostgresCluster is in a major
	// upgrade (the message gives its phase); the database stays Ready
	// through it, and is analyzed again on the new major. The condition
	// is True. What to do: nothing; follow the cluster's MajorUpgrade
	// condition.
	ReasonClusterUpgrading = "ClusterUpgrading"
	// ReasonClusterNotFound means spec.clusterRef names no
	// PostgresCluster. What to do: create the PostgresCluster that
	// spec.clusterRef names, in the namespace it names (this one when
	// unset; clusterRef is immutable: to use another cluster, create a
	// new PostgresDatabase).
	ReasonClusterNotFound = "ClusterNotFound"
	// ReasonClusterDeleting means the PostgresCluster is being deleted.
	// What to do: this database cannot become Ready on a PostgresCluster
	// that is going away: delete the PostgresDatabase, or, if it should
	// live on, create it again on another cluster (clusterRef is
	// immutable).
	ReasonClusterDeleting = "ClusterDeleting"
	// ReasonClusterFailed means the PostgresCluster is Failed (its reason
	// and message are quoted). What to do: fix the cluster first: its
	// Ready condition says why (kubectl setpoint explain on the database
	// explains the cluster too).
	ReasonClusterFailed = "ClusterFailed"
	// ReasonClusterNotReady means the PostgresCluster is not Ready yet.
	// What to do: wait: the database goes on once its cluster is Ready;
	// if the cluster is not getting there, see its Ready condition
	// (kubectl setpoint explain on the database explains the cluster
	// too).
	ReasonClusterNotReady = "ClusterNotReady"
	// ReasonClusterIsReplica means the PostgresCluster is a replica of
	// its topology's primary (spec.topology): Postgres replays the
	// primary's databases, roles and grants and refuses every write, so
	// setpoint writes nothing to it (no DatabaseRole, Database, grant or
	// connection ConfigMap) and the database waits, phase Pending. What
	// to do: nothing while the cluster is a replica; read from it with
	// the primary site's credentials. On promotion every step resumes
	// (docs/guides/disaster-recovery.md).
	ReasonClusterIsReplica = "ClusterIsReplica"
)

// SecretsReady of PostgresDatabase
const (
	// ReasonSecretsReady means every role's credentials are in place.
	// What to do: nothing.
	ReasonSecretsReady = "SecretsReady"
	// ReasonSecretCreateFailed means creating a generated credentials
	// Secret failed; it is retried with backoff. What to do: wait:
	// setpoint retries with backoff; if it persists, the message quotes
	// the API server's error (a verb setpoint's RBAC lacks, an admission
	// webhook, a quota) to fix.
	ReasonSecretCreateFailed = "SecretCreateFailed"
	// ReasonSecretAdoptFailed means taking over a retained credentials
	// Secret failed; it is retried with backoff. What to do: wait:
	// setpoint retries with backoff; if it persists, the message quotes
	// the API server's error (a verb setpoint's RBAC lacks, an admission
	// webhook, a quota) to fix.
	ReasonSecretAdoptFailed = "SecretAdoptFailed"
	// ReasonSecretInvalid means a generated credentials Secret was
	// changed and is no longer usable (the message says how). What to do:
	// fix the Secret the message names (type kubernetes.io/basic-auth
	// with username and password), or delete it: a deleted one is created
	// again, with a new password.
	ReasonSecretInvalid = "SecretInvalid"
	// ReasonExternalSecretNotFound means an external Secret named for a
	// role does not exist. What to do: create the Secret that
	// passwordConfig names (type kubernetes.io/basic-auth, username the
	// role's name, a password), or fix the reference.
	ReasonExternalSecretNotFound = "ExternalSecretNotFound"
	// ReasonExternalSecretInvalid means an external Secret for a role
	// lacks what it needs (the message says what). What to do: fix the
	// Secret that passwordConfig names: type kubernetes.io/basic-auth,
	// username equal to the role's name, a non-empty password.
	ReasonExternalSecretInvalid = "ExternalSecretInvalid"
	// ReasonPasswordRotationFailed means writing a rotated password
	// failed; it is retried with backoff. What to do: wait: setpoint
	// retries with backoff; if it persists, the message quotes the API
	// server's error (a verb setpoint's RBAC lacks, an admission webhook,
	// a quota) to fix.
	ReasonPasswordRotationFailed = "PasswordRotationFailed"
	// ReasonReloadLabelFailed means labelling an external Secret with
	// cnpg.io/reload (passwordConfig.reloadOnChange) failed; it is
	// retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonReloadLabelFailed = "ReloadLabelFailed"
)

// ConfigMapsReady of PostgresDatabase
const (
	// ReasonConfigMapsReady means every database's connection ConfigMap
	// is written. What to do: nothing.
	ReasonConfigMapsReady = "ConfigMapsReady"
	// ReasonConfigMapWriteFailed means writing a connection ConfigMap
	// failed; it is retried with backoff. What to do: wait: setpoint
	// retries with backoff; if it persists, the message quotes the API
	// server's error (a verb setpoint's RBAC lacks, an admission webhook,
	// a quota) to fix.
	ReasonConfigMapWriteFailed = "ConfigMapWriteFailed"
	// ReasonBindingSecretWriteFailed means writing a role's Service
	// Binding Secret (type servicebinding.io/postgresql), or reading the
	// client certificate CloudNativePG issued a certificate role, failed;
	// it is retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonBindingSecretWriteFailed = "BindingSecretWriteFailed"
	// ReasonBindingSecretConflict means a Secret of the name setpoint
	// would give a role's Service Binding Secret exists and is not
	// setpoint's, or is not of type servicebinding.io/postgresql;
	// setpoint leaves it untouched. What to do: delete that Secret or
	// rename it (the message names it; setpoint never takes over an
	// object it did not create), or create the PostgresDatabase under
	// another name.
	ReasonBindingSecretConflict = "BindingSecretConflict"
)

// RolesReady of PostgresDatabase
const (
	// ReasonRolesReconciled means CloudNativePG applied every role. What
	// to do: nothing.
	ReasonRolesReconciled = "RolesReconciled"
	// ReasonRolesPending means CloudNativePG has not applied every role
	// yet, or a previous DatabaseRole is being deleted. What to do: wait:
	// CloudNativePG applies the roles within seconds; if it does not,
	// look at the DatabaseRoles' status (kubectl get databaseroles).
	ReasonRolesPending = "RolesPending"
	// ReasonRolesMigrating means the PostgresCluster is moving a role
	// from the CNPG Cluster's spec.managed.roles to a DatabaseRole. What
	// to do: wait: the cluster is moving roles out of the CNPG Cluster's
	// spec.managed.roles (an upgrade); if someone applied that list
	// since, remove the entry there.
	ReasonRolesMigrating = "RolesMigrating"
	// ReasonRolePrivilegesReverted means someone gave one of setpoint's
	// roles an attribute that bears privilege on its DatabaseRole
	// (superuser, createrole, inRoles, ...); setpoint took it back and
	// waits for CloudNativePG to apply the role unprivileged again. What
	// to do: find who edited the DatabaseRole (kubectl get databaserole
	// <name> --show-managed-fields); give privileges through the
	// database's spec, never by hand.
	ReasonRolePrivilegesReverted = "RolePrivilegesReverted"
	// ReasonRoleNotApplied means CloudNativePG could not apply a role
	// (its message is quoted); it retries. What to do: fix what
	// CloudNativePG names (its message is quoted, and in the
	// DatabaseRole's status); it retries.
	ReasonRoleNotApplied = "RoleNotApplied"
	// ReasonRoleCertificatePending means CloudNativePG has not issued the
	// TLS client certificate of a role of a database with authentication:
	// certificate yet. What to do: wait: CloudNativePG issues the role's
	// client certificate within seconds; if it does not, look at the
	// DatabaseRole's status.clientCertificate.
	ReasonRoleCertificatePending = "RoleCertificatePending"
	// ReasonRoleCertificateNotIssued means CloudNativePG reports why it
	// cannot issue a role's client certificate (quoted), e.g. a cluster
	// whose client CA has no private key, or a same-named Secret that is
	// not its own. What to do: fix what CloudNativePG names: a client CA
	// without its private key needs certificates issued by hand; a
	// same-named Secret that is not CloudNativePG's must go.
	ReasonRoleCertificateNotIssued = "RoleCertificateNotIssued"
	// ReasonRoleConflict means a role is managed by someone else: in the
	// CNPG Cluster's spec.managed.roles, or by a DatabaseRole setpoint
	// did not create for this object. What to do: remove the role there
	// (the message names who manages it), or use another database name.
	ReasonRoleConflict = "RoleConflict"
	// ReasonRoleExists means Postgres already has a role of that name
	// that setpoint did not create. What to do: drop or rename the role
	// in Postgres, use another database name, or take it over with
	// spec.adoptFrom if it came from a restore.
	ReasonRoleExists = "RoleExists"
	// ReasonRoleUnverified means setpoint could not check in Postgres
	// whether a role exists; it tries again. What to do: wait: setpoint
	// asks Postgres again shortly; if it lasts, look at the
	// PostgresCluster's MonitorReady and PostgresUnreachable.
	ReasonRoleUnverified = "RoleUnverified"
	// ReasonRoleCreateFailed means creating a DatabaseRole failed; it is
	// retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonRoleCreateFailed = "RoleCreateFailed"
	// ReasonRoleApplyFailed means writing a DatabaseRole failed; it is
	// retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonRoleApplyFailed = "RoleApplyFailed"
)

// DatabasesReady of PostgresDatabase
const (
	// ReasonDatabasesApplied means CloudNativePG applied every database.
	// What to do: nothing.
	ReasonDatabasesApplied = "DatabasesApplied"
	// ReasonDatabaseApplying means CloudNativePG has not applied a CNPG
	// Database yet. What to do: wait: CloudNativePG creates the database;
	// if it does not, look at the CNPG Database's status.
	ReasonDatabaseApplying = "DatabaseApplying"
	// ReasonDatabaseNotApplied means CloudNativePG could not apply a
	// database yet (its message is quoted). What to do: fix what
	// CloudNativePG names (its message is quoted, and in the CNPG
	// Database's status).
	ReasonDatabaseNotApplied = "DatabaseNotApplied"
	// ReasonDatabaseDeleting means a previous CNPG Database of that name
	// is being deleted. What to do: wait: the previous CNPG Database of
	// that name goes first; if it lasts, look at its status and
	// finalizers.
	ReasonDatabaseDeleting = "DatabaseDeleting"
	// ReasonDatabaseConflict means a CNPG Database of that name exists
	// that setpoint did not create. What to do: delete that CNPG Database
	// (the message names it), or use another database name; setpoint
	// never takes over one it did not create.
	ReasonDatabaseConflict = "DatabaseConflict"
	// ReasonDatabaseExists means Postgres already has a database of that
	// name that setpoint did not create. What to do: drop or rename the
	// database in Postgres, use another name, or take it over with
	// spec.adoptFrom if it came from a restore.
	ReasonDatabaseExists = "DatabaseExists"
	// ReasonDatabaseUnverified means setpoint could not check in Postgres
	// whether a database exists; it tries again. What to do: wait:
	// setpoint asks Postgres again shortly; if it lasts, look at the
	// PostgresCluster's MonitorReady and PostgresUnreachable.
	ReasonDatabaseUnverified = "DatabaseUnverified"
	// ReasonDatabaseApplyFailed means writing a CNPG Database failed; it
	// is retried with backoff. What to do: wait: setpoint retries with
	// backoff; if it persists, the message quotes the API server's error
	// (a verb setpoint's RBAC lacks, an admission webhook, a quota) to
	// fix.
	ReasonDatabaseApplyFailed = "DatabaseApplyFailed"
)

// PrivilegesReady of PostgresDatabase
const (
	// ReasonPrivilegesIsolated means every role has its privileges and
	// each database is closed to every other role: PUBLIC may neither
	// connect to it, create temporary tables in it nor create in its
	// schema public. What to do: nothing.
	ReasonPrivilegesIsolated = "PrivilegesIsolated"
	// ReasonPrivilegesDriftReverted means a role of setpoint's held a
	// privilege its spec does not declare (granted by hand) and setpoint
	// revoked it (the message names it; an Event too); every role now
	// holds what is declared. What to do: declare the privilege under the
	// database's roles if the role needs it, and find who granted it.
	ReasonPrivilegesDriftReverted = "PrivilegesDriftReverted"
	// ReasonAdminUnavailable means setpoint cannot log in as a database's
	// admin role to grant privileges (the error is quoted); it tries
	// again. What to do: wait: the admin role's password is being
	// applied, and setpoint tries again; if it lasts, read the message.
	ReasonAdminUnavailable = "AdminUnavailable"
	// ReasonGrantFailed means granting privileges failed (the error is
	// quoted); it tries again. What to do: read Postgres's error in the
	// message; setpoint tries again. "every role may still CREATE in
	// schema public" means PostgreSQL 14 or earlier: upgrade to 15 or
	// later.
	ReasonGrantFailed = "GrantFailed"
	// ReasonAnalyzeFailed means ANALYZE after the cluster's major upgrade
	// failed in a database (Postgres's error is quoted): pg_upgrade keeps
	// no planner statistics, so queries may plan badly until it runs; it
	// tries again. What to do: read the error; a timeout on a very large
	// database means running ANALYZE by hand, as the owner, once.
	ReasonAnalyzeFailed = "AnalyzeFailed"
)

// Admission of PostgresDatabase on a cluster of another namespace
//
// ClusterReady, and Admitted, of a PostgresDatabase whose
// spec.clusterRef names another namespace.
const (
	// ReasonNamespaceNotAdmitted means the PostgresCluster spec.clusterRef
	// names, in another namespace, does not admit this namespace (its
	// spec.tenants, or its class's, lists or selects it not), or cannot
	// be judged yet; nothing was written. What to do: ask the platform
	// team that runs the cluster to admit the namespace (the message
	// names the cluster and the rule), or use a cluster of your own
	// namespace.
	ReasonNamespaceNotAdmitted = "NamespaceNotAdmitted"
	// ReasonAdmitted means the PostgresCluster of another namespace
	// admits this one. What to do: nothing.
	ReasonAdmitted = "Admitted"
	// ReasonAdmissionWithdrawn means the PostgresCluster admitted this
	// namespace once and no longer does: the databases, roles and Secrets
	// already made are kept and keep working, and setpoint changes
	// nothing (no new role, no rotation) until the namespace is admitted
	// again. What to do: ask the platform team to admit the namespace
	// again, or move the data and delete the PostgresDatabase (its
	// deletionPolicy still runs).
	ReasonAdmissionWithdrawn = "AdmissionWithdrawn"
)
