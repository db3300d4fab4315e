package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// PostgresDatabase gives an application databases on a PostgresCluster:
// per database an owner role (<db>_admin), a read-write role (<db>_rw) and,
// with readOnlyRole, a read-only role (<db>_ro), each a CNPG DatabaseRole;
// their credentials in Secrets, connection info in a ConfigMap, and the
// privileges that let the other roles use what the admin role creates.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=pgdb,categories=setpoint;postgres
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=`.spec.clusterRef.name`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Databases",type=string,JSONPath=`.spec.databases[*].name`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
//
// The name labels every child (label values hold at most 63 characters)
// and starts the children's names, <name>-<database with '_' as '-'>.
//
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63",message="metadata.name must be at most 63 characters: it is a label value on every child"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.adoptFrom) || self.spec.adoptFrom != self.metadata.name",message="spec.adoptFrom must differ from metadata.name: what setpoint created for this name is this object's without adoptFrom"
type PostgresDatabase struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired set of databases.
	Spec PostgresDatabaseSpec `json:"spec"`

	// status is what setpoint last observed.
	// +optional
	Status PostgresDatabaseStatus `json:"status,omitempty"`
}

// PostgresDatabaseSpec is the desired set of databases on one cluster.
//
// +kubebuilder:validation:XValidation:rule="has(self.adoptFrom) == has(oldSelf.adoptFrom)",message="adoptFrom can only be set when the PostgresDatabase is created",fieldPath=".adoptFrom"
type PostgresDatabaseSpec struct {
	// clusterRef names the PostgresCluster that hosts the databases: in
	// the same namespace, or in namespace, when that cluster admits this
	// namespace (its tenants). It cannot change after creation.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="clusterRef is immutable"
	ClusterRef ClusterReference `json:"clusterRef"`

	// databases to create, at most 10, each name unique.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	Databases []DatabaseSpec `json:"databases"`

	// adoptFrom names a PostgresDatabase, in the same namespace, whose
	// databases and roles this one takes over: exactly those that Postgres
	// marks as created by setpoint for <namespace>/<adoptFrom>, typically
	// on a cluster restored from a backup of that object's cluster. A role
	// or database marked for any other object,
	// or not created by setpoint, is still refused, and so is everything
	// while the named PostgresDatabase itself uses this cluster. Adopted
	// roles get this object's Secrets (new passwords): the source's
	// credentials stop working on this cluster. Set at creation only.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="adoptFrom is immutable"
	AdoptFrom string `json:"adoptFrom,omitempty"`
}

// DatabaseSpec is one database.
//
// +kubebuilder:validation:XValidation:rule="!has(self.passwordConfig) || !has(self.passwordConfig.roSecretRef) || (has(self.readOnlyRole) && self.readOnlyRole)",message="passwordConfig.roSecretRef is the Secret of the read-only role: it needs readOnlyRole: true"
// +kubebuilder:validation:XValidation:rule="!has(self.roles) || self.roles.all(r, size(self.name) + 1 + size(r.name) <= 63)",message="a role's name <database>_<role> must fit Postgres's 63 bytes"
// +kubebuilder:validation:XValidation:rule="!has(self.roles) || !self.roles.exists(r, r.name == 'ro') || (has(self.readOnlyRole) && self.readOnlyRole)",message="roles: the entry ro gives the read-only role grants: it needs readOnlyRole: true"
// +kubebuilder:validation:XValidation:rule="!has(self.schemas) || self.schemas.all(s, !has(s.owner) || s.owner == 'admin' || (has(self.roles) && self.roles.exists(r, r.name == s.owner && !(r.name in ['rw', 'ro']))))",message="schemas: an owner must be admin or a role of roles other than rw and ro"
// +kubebuilder:validation:XValidation:rule="!has(self.roles) || self.roles.all(r, !has(r.inRoles) || r.inRoles.all(m, m in ['rw'] || (m == 'ro' && has(self.readOnlyRole) && self.readOnlyRole) || self.roles.exists(o, o.name == m && !(o.name in ['rw', 'ro']))))",message="roles: inRoles may name only this database's roles rw, ro (with readOnlyRole) or a role of roles"
// +kubebuilder:validation:XValidation:rule="!has(self.roles) || self.roles.all(r, !has(r.inRoles) || !self.roles.exists(o, has(o.inRoles) && o.name in r.inRoles && r.name in o.inRoles))",message="roles: two roles cannot be members of each other"
// +kubebuilder:validation:XValidation:rule="!has(self.roles) || self.roles.all(r, (!has(r.grants) || r.grants.all(g, !has(g.schema) || g.schema == 'public' || (has(self.schemas) && self.schemas.exists(s, s.name == g.schema)))) && (!has(r.defaultPrivileges) || r.defaultPrivileges.all(g, g.schema == 'public' || (has(self.schemas) && self.schemas.exists(s, s.name == g.schema)))))",message="roles: a grant's schema must be public or one of schemas"
// +kubebuilder:validation:XValidation:rule="!has(self.roles) || self.roles.all(r, !has(r.defaultPrivileges) || r.defaultPrivileges.all(g, !has(g.owner) || g.owner == 'admin' || self.roles.exists(o, o.name == g.owner && !(o.name in ['rw', 'ro']))))",message="roles: defaultPrivileges' owner must be admin or a role of roles other than rw and ro"
type DatabaseSpec struct {
	// name of the database: lowercase letters, digits and underscores,
	// starting with a letter, at most 57 bytes so that the role names
	// <name>_admin and <name>_rw fit Postgres's 63-byte limit.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=57
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9_]*$`
	// +kubebuilder:validation:XValidation:rule="!(self in ['postgres', 'template0', 'template1'])",message="name must not be a Postgres system database (postgres, template0, template1)"
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('pg_') && !self.startsWith('cnpg_')",message="name must not start with the reserved prefixes pg_ or cnpg_"
	Name string `json:"name"`

	// extensions to create in the database. Removing one from the list
	// drops it.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:Pattern=`^[a-z][a-z0-9_-]*$`
	// +kubebuilder:validation:items:MaxLength=63
	Extensions []string `json:"extensions,omitempty"`

	// deletionPolicy says whether removing the database from the spec, or
	// deleting the PostgresDatabase, drops the database and its roles
	// (Delete) or keeps them for a later PostgresDatabase to adopt (Retain).
	// +optional
	// +kubebuilder:default=Delete
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// passwordConfig points at credentials managed outside setpoint.
	// +optional
	PasswordConfig *DatabasePasswordConfig `json:"passwordConfig,omitempty"`

	// readOnlyRole adds the role <name>_ro with its own Secret: it may
	// connect, use schema public and read (SELECT) its tables and
	// sequences, including those <name>_admin creates later. Removing the
	// flag removes the role as deletionPolicy says: Delete drops it (and
	// its generated Secret), Retain keeps role and Secret for a later
	// readOnlyRole: true.
	// +optional
	ReadOnlyRole bool `json:"readOnlyRole,omitempty"`

	// statementTimeout is the database's default statement_timeout: a
	// statement of any session in it that runs longer is cancelled
	// (SQLSTATE 57014), unless the session sets its own. On a shared
	// cluster it keeps one application's runaway query from holding a
	// connection and locks for ever. Set as the database's owner
	// (ALTER DATABASE … SET statement_timeout), in whole milliseconds;
	// it applies to sessions opened after. 0s means no timeout. Unset,
	// the cluster's databaseDefaults.statementTimeout applies (its
	// class's unless the cluster sets one), and with none there either
	// setpoint resets a value set on the database by other means. At
	// most 24h.
	// +optional
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('24h')",message="statementTimeout must be between 0s (no timeout) and 24h"
	StatementTimeout *metav1.Duration `json:"statementTimeout,omitempty"`

	// authentication is how the database's roles log in: password (the
	// Secrets' passwords) or certificate (a TLS client certificate per
	// role, issued by CloudNativePG and signed by the cluster's client CA,
	// in Secret <cluster>.<role with '-' for '_'>-client-cert; over TLS
	// the roles' passwords are then refused). It is set when the database
	// is added: every client would have to switch at the same moment,
	// so to change it add a database with the other method.
	// +optional
	// +kubebuilder:default=password
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="authentication is immutable: add a database with the other method instead"
	Authentication Authentication `json:"authentication,omitempty"`

	// schemas to create beside public, each with its owner. A schema
	// removed from the list is left in place, with its data; a rename is a
	// new schema. The read-only role (readOnlyRole) reads every schema
	// declared here as it reads public.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Schemas []SchemaSpec `json:"schemas,omitempty"`

	// roles are the database's roles beyond <name>_admin, <name>_rw and
	// <name>_ro, each named <name>_<role name>, and the grants of the
	// fixed roles rw and ro beyond their own (an entry named rw or ro).
	// Every role listed holds exactly the privileges declared for it:
	// what is removed from the list is revoked, and what someone grants
	// it by hand is revoked and reported.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Roles []DatabaseRoleSpec `json:"roles,omitempty"`
}

// SchemaSpec is one schema of a database beside public.
type SchemaSpec struct {
	// name of the schema: lowercase letters, digits and underscores,
	// starting with a letter; not public nor a name Postgres reserves.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9_]*$`
	// +kubebuilder:validation:XValidation:rule="self != 'public' && self != 'information_schema' && !self.startsWith('pg_')",message="name must not be public, information_schema or start with pg_"
	Name string `json:"name"`

	// owner is the role that owns the schema, by its name within the
	// database: admin or one of roles (not rw or ro). It may create,
	// alter and drop objects there. The schema's owner changes when this
	// does. <database>_admin is a member of every role of roles, so that
	// setpoint, acting as the database's owner, can grant on what they
	// own.
	// +optional
	// +kubebuilder:default=admin
	// +kubebuilder:validation:MaxLength=63
	Owner string `json:"owner,omitempty"`
}

// DatabaseRoleSpec is one role of a database beyond the fixed ones, or
// the grants and connection limit of a fixed role (the entries rw and
// ro). Login, inRoles and connectionLimit go to the role's CNPG
// DatabaseRole, as for the fixed roles; grants and defaultPrivileges are
// SQL setpoint runs as the database's owner.
//
// +kubebuilder:validation:XValidation:rule="!(self.name in ['rw', 'ro']) || (!has(self.login) && !has(self.inRoles))",message="the fixed roles rw and ro take only grants, defaultPrivileges and connectionLimit here"
// +kubebuilder:validation:XValidation:rule="!has(self.inRoles) || !(self.name in self.inRoles)",message="a role cannot be a member of itself"
type DatabaseRoleSpec struct {
	// name of the role within the database: the role is
	// <database>_<name>. rw and ro name the fixed roles; admin, the owner,
	// holds every privilege on what it owns and takes no grants. A login
	// role is named in the connection ConfigMap as the fixed roles are
	// (<name>-user, <name>-secret), so ca, whose ca-secret names the
	// server's CA there, is refused.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=61
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9_]*$`
	// +kubebuilder:validation:XValidation:rule="self != 'admin'",message="admin is the database's owner: it holds every privilege on what it owns and takes no grants"
	// +kubebuilder:validation:XValidation:rule="self != 'ca'",message="ca cannot name a role: its connection ConfigMap key ca-secret names the server's CA"
	Name string `json:"name"`

	// login lets the role log in; its password is in a Secret setpoint
	// generates, <pgdb>-<database>-<name> ('_' as '-'), as for the fixed
	// roles. A role without login (the default) is a group other roles
	// take through inRoles, and has no Secret.
	// +optional
	Login *bool `json:"login,omitempty"`

	// inRoles are roles of this database, by their names within it (rw,
	// ro or another entry of roles), whose privileges this role has. Two
	// roles cannot be members of each other.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=61
	InRoles []string `json:"inRoles,omitempty"`

	// connectionLimit is how many connections the role may have at once
	// (CNPG's DatabaseRole connectionLimit, Postgres's CONNECTION LIMIT);
	// -1 (the default) means no limit. On the entries rw and ro it limits
	// the fixed role: on a shared cluster, what one application may take
	// of max_connections. The owner (admin) takes none: setpoint itself
	// connects as it to run the grants.
	// +optional
	// +kubebuilder:validation:Minimum=-1
	ConnectionLimit *int32 `json:"connectionLimit,omitempty"`

	// grants are the role's privileges on the database, its schemas and
	// the objects in them.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Grants []Grant `json:"grants,omitempty"`

	// defaultPrivileges are the role's privileges on objects another role
	// of the database creates later in a schema.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	DefaultPrivileges []DefaultPrivileges `json:"defaultPrivileges,omitempty"`
}

// GrantObject is the kind of object a grant is on.
// +kubebuilder:validation:Enum=database;schema;tables;sequences;functions
type GrantObject string

const (
	// GrantOnDatabase: the database itself (CONNECT, TEMPORARY, CREATE).
	GrantOnDatabase GrantObject = "database"
	// GrantOnSchema: a schema (USAGE, CREATE).
	GrantOnSchema GrantObject = "schema"
	// GrantOnTables: tables, views and materialized views of a schema
	// (SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER).
	GrantOnTables GrantObject = "tables"
	// GrantOnSequences: sequences of a schema (USAGE, SELECT, UPDATE).
	GrantOnSequences GrantObject = "sequences"
	// GrantOnFunctions: functions and procedures of a schema (EXECUTE).
	GrantOnFunctions GrantObject = "functions"
)

// Privilege is one SQL privilege.
// +kubebuilder:validation:Enum=CONNECT;TEMPORARY;CREATE;USAGE;SELECT;INSERT;UPDATE;DELETE;TRUNCATE;REFERENCES;TRIGGER;EXECUTE
type Privilege string

// Grant is privileges on the database, on a schema, or on objects of a
// kind in a schema.
//
// +kubebuilder:validation:XValidation:rule="self.object == 'database' ? !has(self.schema) : has(self.schema)",message="schema is required for a grant on a schema or its objects, and refused for a grant on the database"
// +kubebuilder:validation:XValidation:rule="!has(self.names) || self.object == 'tables'",message="names picks tables: it needs object: tables"
// +kubebuilder:validation:XValidation:rule="!has(self.names) || self.names.all(n, bytes(n).size() <= 63)",message="names: a table's name is at most 63 bytes"
// +kubebuilder:validation:XValidation:rule="self.object != 'database' || self.privileges.all(p, p in ['CONNECT', 'TEMPORARY', 'CREATE'])",message="on a database only CONNECT, TEMPORARY and CREATE can be granted"
// +kubebuilder:validation:XValidation:rule="self.object != 'schema' || self.privileges.all(p, p in ['USAGE', 'CREATE'])",message="on a schema only USAGE and CREATE can be granted"
// +kubebuilder:validation:XValidation:rule="self.object != 'tables' || self.privileges.all(p, p in ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'])",message="on tables only SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES and TRIGGER can be granted"
// +kubebuilder:validation:XValidation:rule="self.object != 'sequences' || self.privileges.all(p, p in ['USAGE', 'SELECT', 'UPDATE'])",message="on sequences only USAGE, SELECT and UPDATE can be granted"
// +kubebuilder:validation:XValidation:rule="self.object != 'functions' || self.privileges.all(p, p == 'EXECUTE')",message="on functions only EXECUTE can be granted"
type Grant struct {
	// object is the kind of object granted on: database, schema, tables,
	// sequences or functions. (Not "on": YAML 1.1 reads that key as true.)
	Object GrantObject `json:"object"`

	// schema is the schema granted on (object: schema) or holding the objects
	// (tables, sequences, functions): public or one of schemas.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Schema string `json:"schema,omitempty"`

	// names picks tables of the schema by name (object: tables); absent, the
	// grant is on all of them, those created later included.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=63
	Names []string `json:"names,omitempty"`

	// privileges granted.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=7
	Privileges []Privilege `json:"privileges"`
}

// DefaultPrivileges is privileges on the objects of a kind that a role
// creates later in a schema (ALTER DEFAULT PRIVILEGES).
//
// +kubebuilder:validation:XValidation:rule="self.object in ['tables', 'sequences', 'functions']",message="default privileges are on tables, sequences or functions"
// +kubebuilder:validation:XValidation:rule="self.object != 'tables' || self.privileges.all(p, p in ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'])",message="on tables only SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES and TRIGGER can be granted"
// +kubebuilder:validation:XValidation:rule="self.object != 'sequences' || self.privileges.all(p, p in ['USAGE', 'SELECT', 'UPDATE'])",message="on sequences only USAGE, SELECT and UPDATE can be granted"
// +kubebuilder:validation:XValidation:rule="self.object != 'functions' || self.privileges.all(p, p == 'EXECUTE')",message="on functions only EXECUTE can be granted"
type DefaultPrivileges struct {
	// owner is the role whose future objects these are, by its name
	// within the database: admin or one of roles (not rw or ro).
	// +optional
	// +kubebuilder:default=admin
	// +kubebuilder:validation:MaxLength=63
	Owner string `json:"owner,omitempty"`

	// schema the objects will be created in: public or one of schemas.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Schema string `json:"schema"`

	// object is the kind of object: tables, sequences or functions.
	Object GrantObject `json:"object"`

	// privileges granted.
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=7
	Privileges []Privilege `json:"privileges"`
}

// Authentication is how a database's roles log in.
// +kubebuilder:validation:Enum=password;certificate
type Authentication string

const (
	// AuthenticationPassword: the roles log in with the passwords of
	// their Secrets.
	AuthenticationPassword Authentication = "password"
	// AuthenticationCertificate: the roles log in with TLS client
	// certificates CloudNativePG issues; no password is accepted over
	// TLS.
	AuthenticationCertificate Authentication = "certificate"
)

// DatabasePasswordConfig points at externally managed credentials. Each
// Secret must be of type kubernetes.io/basic-auth with username equal to the
// role name and a password; setpoint never modifies it.
type DatabasePasswordConfig struct {
	// adminSecretRef names the Secret of the <db>_admin role.
	// +optional
	AdminSecretRef *LocalObjectReference `json:"adminSecretRef,omitempty"`
	// rwSecretRef names the Secret of the <db>_rw role.
	// +optional
	RWSecretRef *LocalObjectReference `json:"rwSecretRef,omitempty"`
	// roSecretRef names the Secret of the <db>_ro role (readOnlyRole).
	// +optional
	ROSecretRef *LocalObjectReference `json:"roSecretRef,omitempty"`
	// reloadOnChange lets setpoint add the label cnpg.io/reload: "true"
	// to the Secrets named here, so that CloudNativePG applies a password
	// changed in them at once. It is the only change setpoint ever makes
	// to them, and only with this opt-in; setting it back to false leaves
	// the label in place (remove it yourself).
	// +optional
	ReloadOnChange bool `json:"reloadOnChange,omitempty"`
}

// PasswordRotation records the last rotation of a generated password.
type PasswordRotation struct {
	// request is the value of the rotate-passwords annotation that the
	// rotation answered.
	Request string `json:"request"`
	// rotatedAt is when the new password was written into the Secret.
	RotatedAt metav1.Time `json:"rotatedAt"`
}

// Annotations that ask for a password rotation. A new value of
// RotatePasswordsAnnotation is a new request, carried out exactly once.
const (
	// RotatePasswordsAnnotation on a PostgresDatabase rotates the
	// generated passwords of its roles; on a PostgresCluster, the
	// generated superuser password. Its value is any request id.
	RotatePasswordsAnnotation = "postgres.setpoint.dev/rotate-passwords"
	// RotatePasswordsRolesAnnotation narrows a PostgresDatabase's request
	// to some roles: a comma-separated list of kinds (admin, rw, ro) or
	// role names (orders_rw). Absent: every role.
	RotatePasswordsRolesAnnotation = "postgres.setpoint.dev/rotate-passwords-roles"
)

// RoleEnsure says whether a role should exist.
// +kubebuilder:validation:Enum=present;absent
type RoleEnsure string

const (
	RoleEnsurePresent RoleEnsure = "present"
	RoleEnsureAbsent  RoleEnsure = "absent"
)

// PostgresDatabaseStatus is what setpoint last observed.
type PostgresDatabaseStatus struct {
	// phase is one of Pending, Provisioning, Ready, Failed, Deleting.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// conditions: one per step of the pipeline, in its order (the
	// reference lists them), then Ready; PasswordRotation while a
	// rotate-passwords annotation is set.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the spec generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// databases reports each database.
	// +optional
	// +listType=map
	// +listMapKey=name
	Databases []DatabaseStatus `json:"databases,omitempty"`

	// statisticsMajor is the Postgres major the databases' planner
	// statistics were last rebuilt on: pg_upgrade keeps none, so after a
	// major upgrade of the cluster each database is analyzed again, as
	// its owner, and this moves to the new major.
	// +optional
	StatisticsMajor int32 `json:"statisticsMajor,omitempty"`
}

// DatabaseStatus reports one database.
type DatabaseStatus struct {
	// name of the database.
	Name string `json:"name"`
	// ready is true when the database, its roles and privileges are in
	// place.
	Ready bool `json:"ready"`
	// message explains why the database is not ready.
	// +optional
	Message string `json:"message,omitempty"`
	// adminSecretRef names the Secret with the <db>_admin credentials.
	// +optional
	AdminSecretRef *LocalObjectReference `json:"adminSecretRef,omitempty"`
	// rwSecretRef names the Secret with the <db>_rw credentials.
	// +optional
	RWSecretRef *LocalObjectReference `json:"rwSecretRef,omitempty"`
	// roSecretRef names the Secret with the <db>_ro credentials.
	// +optional
	ROSecretRef *LocalObjectReference `json:"roSecretRef,omitempty"`
	// configMapRef names the connection-info ConfigMap.
	// +optional
	ConfigMapRef *LocalObjectReference `json:"configMapRef,omitempty"`
	// roles are the database's roles (each a CNPG DatabaseRole named
	// <cluster>.<role>), and whether each exists; a role being removed is
	// listed absent until it is gone. A record of progress only: the
	// roles come from the spec.
	// +optional
	// +listType=map
	// +listMapKey=name
	Roles []RoleStatus `json:"roles,omitempty"`
}

// RoleStatus is one role of a database, as setpoint last saw it.
type RoleStatus struct {
	// name of the role.
	Name string `json:"name"`
	// ensure is present, or absent while the role is being removed.
	Ensure RoleEnsure `json:"ensure"`
	// passwordSecretRef names the Secret holding the role's password.
	// +optional
	PasswordSecretRef *LocalObjectReference `json:"passwordSecretRef,omitempty"`
	// exists is true when CloudNativePG reports the role's DatabaseRole
	// applied.
	Exists bool `json:"exists"`
	// lastRotation is the last rotation of the role's generated password,
	// read from its Secret.
	// +optional
	LastRotation *PasswordRotation `json:"lastRotation,omitempty"`
}

// PostgresDatabaseList is a list of PostgresDatabases.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type PostgresDatabaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []PostgresDatabase `json:"items"`
}
