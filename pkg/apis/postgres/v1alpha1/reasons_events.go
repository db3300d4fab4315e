package v1alpha1

// Events
//
// The reasons of the Events setpoint records. A Warning Event when an
// object becomes Failed has the Ready condition's reason instead, and
// one when a condition from Postgres itself (PostgresUnreachable,
// NotAcceptingWrites, ConnectionsSaturated, StorageNearlyFull,
// SynchronousStandbysMissing) turns
// True has that condition's type.
const (
	// EventReady marks an object becoming Ready (Normal). What to do:
	// nothing.
	EventReady = "Ready"
	// EventNotReady marks a Ready object that is not anymore (Warning).
	// What to do: read its Ready condition.
	EventNotReady = "NotReady"
	// EventPostgresReachable says the collector can sample the primary
	// again: PostgresUnreachable cleared (Normal). What to do: nothing.
	EventPostgresReachable = "PostgresReachable"
	// EventAcceptingWrites says the primary accepts writes again:
	// NotAcceptingWrites cleared (Normal). What to do: nothing.
	EventAcceptingWrites = "AcceptingWrites"
	// EventConnectionsAvailable says ConnectionsSaturated cleared
	// (Normal). What to do: nothing.
	EventConnectionsAvailable = "ConnectionsAvailable"
	// EventStorageAvailable says StorageNearlyFull cleared (Normal).
	// What to do: nothing.
	EventStorageAvailable = "StorageAvailable"
	// EventSynchronousStandbysStreaming says SynchronousStandbysMissing
	// cleared: commits no longer wait (Normal). What to do: nothing.
	EventSynchronousStandbysStreaming = "SynchronousStandbysStreaming"
	// EventClassInUse says a PostgresClusterClass being deleted waits
	// for the PostgresClusters that use it (Warning). What to do: delete
	// them or move them to another class.
	EventClassInUse = "ClassInUse"
	// EventRetained says what a deletion kept, by the Retain policy
	// (Normal). What to do: nothing; delete the kept objects when no
	// longer needed.
	EventRetained = "Retained"
	// EventDeleted says a PostgresCluster's CNPG Cluster and its children
	// were deleted (Normal). What to do: nothing.
	EventDeleted = "Deleted"
	// EventAdopted says a PostgresCluster took over a retained object
	// (Normal). What to do: nothing.
	EventAdopted = "Adopted"
	// EventSecretAdopted says a PostgresDatabase took over a retained
	// credentials Secret (Normal). What to do: nothing.
	EventSecretAdopted = "SecretAdopted"
	// EventRecreated says a lost CNPG Cluster was created again, as the
	// recreate annotation asked (Normal). What to do: check the data.
	EventRecreated = "Recreated"
	// EventRecreateIgnored says a recreate annotation was removed
	// because nothing was lost (Warning). What to do: nothing; it is not
	// kept for a later loss.
	EventRecreateIgnored = "RecreateIgnored"
	// EventReleasedManagedRoles says roles were moved from the CNPG
	// Cluster's spec.managed.roles to DatabaseRoles (Normal). What to
	// do: nothing.
	EventReleasedManagedRoles = "ReleasedManagedRoles"
	// EventStorageGrown says auto-grow raised the data volumes (Normal).
	// What to do: nothing.
	EventStorageGrown = "StorageGrown"
	// EventStorageAtLimit says usage is over the auto-grow threshold at
	// the limit (Warning). What to do: raise storage.autoGrow.limit or
	// free space.
	EventStorageAtLimit = "StorageAtLimit"
	// EventSecretRecreated says a credentials or superuser Secret that
	// had been deleted was created again, with a new password (Warning).
	// What to do: make sure clients read the new one.
	EventSecretRecreated = "SecretRecreated"
	// EventSuperuserSecretDeleted says the superuser Secret was deleted
	// because superuser access is off (Normal). What to do: nothing.
	EventSuperuserSecretDeleted = "SuperuserSecretDeleted"
	// EventDatabaseDeleting says a CNPG Database was deleted, so
	// CloudNativePG drops the database (Normal). What to do: nothing.
	EventDatabaseDeleting = "DatabaseDeleting"
	// EventRoleDeleting says a DatabaseRole was deleted, so
	// CloudNativePG drops the role (Normal). What to do: nothing.
	EventRoleDeleting = "RoleDeleting"
	// EventRolePrivilegesReverted says setpoint took back attributes
	// that bear privilege another field manager had put on one of its
	// DatabaseRoles (Warning). What to do: find who edited it.
	EventRolePrivilegesReverted = "RolePrivilegesReverted"
	// EventPrivilegesDriftReverted says setpoint revoked SQL privileges
	// a role of its held without the spec declaring them (Warning). What
	// to do: declare them if the role needs them; find who granted them.
	EventPrivilegesDriftReverted = "PrivilegesDriftReverted"
	// EventClusterGone says a PostgresDatabase was deleted while its
	// PostgresCluster is gone: everything was kept whatever the
	// deletionPolicy (Warning). What to do: delete what is left by hand,
	// or adopt it with a PostgresDatabase of the same name.
	EventClusterGone = "ClusterGone"
	// EventClientCARotating says a rotate-client-ca request began a move
	// to a new client CA (Normal). What to do: nothing; CertificatesReady
	// follows the move.
	EventClientCARotating = "ClientCARotating"
	// EventClientCAReplaced says a new client CA signs client
	// certificates from now on, and the one it replaced is still trusted
	// while what it signed is re-issued (Normal). What to do: nothing;
	// applications that load their certificate once at start should be
	// restarted before the move ends (CertificatesReady says when).
	EventClientCAReplaced = "ClientCAReplaced"
	// EventClientCAMoved says the replaced client CA is no longer
	// trusted, by the Secret or by Postgres: only certificates the
	// cluster's own client CA signed log in (Normal). What to do: nothing.
	EventClientCAMoved = "ClientCAMoved"
)
