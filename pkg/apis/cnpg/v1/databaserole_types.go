package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// DatabaseRole is CNPG's standalone role (new in CNPG 1.30): one object
// per PostgreSQL role, reconciled by the primary's instance manager. A role
// also listed in its Cluster's spec.managed.roles is left to the Cluster.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type DatabaseRole struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DatabaseRoleSpec   `json:"spec"`
	Status DatabaseRoleStatus `json:"status,omitempty"`
}

// DatabaseRole reclaim policies: what happens to the PostgreSQL role when
// the object is deleted. CNPG's default is retain.
const (
	DatabaseRoleReclaimRetain = "retain"
	DatabaseRoleReclaimDelete = "delete"
)

// DatabaseRoleConditionPasswordSecretChange is the condition CNPG's
// operator keeps on a DatabaseRole, its message the resourceVersion of the
// password Secret it last saw; a change tells the instance manager, which
// cannot watch Secrets, to apply the password again.
const DatabaseRoleConditionPasswordSecretChange = "PasswordSecretChange"

// DatabaseRoleSpec is CNPG's DatabaseRole spec: the role attributes of a
// managed.roles entry, flattened as CNPG inlines them, plus the Cluster,
// the reclaim policy and client-certificate issuance.
//
// Inherit and ConnectionLimit are pointers because the CRD defaults them
// (true, -1): an omitted false or 0 would come back as the default.
type DatabaseRoleSpec struct {
	// Cluster is immutable (CEL in CNPG's CRD).
	Cluster LocalObjectReference `json:"cluster"`
	// Name is the PostgreSQL role's name; immutable.
	Name string `json:"name"`
	// Ensure may only be present (CEL): absence is deletion with reclaim delete.
	Ensure      EnsureOption `json:"ensure,omitempty"`
	Comment     string       `json:"comment,omitempty"`
	Login       bool         `json:"login,omitempty"`
	Superuser   bool         `json:"superuser,omitempty"`
	CreateDB    bool         `json:"createdb,omitempty"`
	CreateRole  bool         `json:"createrole,omitempty"`
	Inherit     *bool        `json:"inherit,omitempty"`
	Replication bool         `json:"replication,omitempty"`
	BypassRLS   bool         `json:"bypassrls,omitempty"`
	// ConnectionLimit -1 (the default) is no limit.
	ConnectionLimit *int64       `json:"connectionLimit,omitempty"`
	ValidUntil      *metav1.Time `json:"validUntil,omitempty"`
	// InRoles are granted, and memberships not listed revoked, on every
	// reconciliation. atomic, as in CNPG's schema (no list-type declared).
	// +listType=atomic
	InRoles []string `json:"inRoles,omitempty"`
	// PasswordSecret is a basic-auth Secret whose username is Name.
	PasswordSecret *LocalObjectReference `json:"passwordSecret,omitempty"`
	// DisablePassword sets the password to NULL; exclusive with PasswordSecret.
	DisablePassword bool `json:"disablePassword,omitempty"`
	// DatabaseRoleReclaimPolicy is retain (the default) or delete.
	DatabaseRoleReclaimPolicy string `json:"databaseRoleReclaimPolicy,omitempty"`
	// ClientCertificate asks CNPG's operator for a TLS client certificate
	// in Secret `<object name>-client-cert`; needs Login.
	ClientCertificate *ClientCertificateConfiguration `json:"clientCertificate,omitempty"`
}

// ClientCertificateConfiguration switches client-certificate issuance for
// a DatabaseRole. Enabled defaults to true when the block is present.
type ClientCertificateConfiguration struct {
	Enabled *bool `json:"enabled,omitempty"`
}

// DatabaseRoleStatus is what CNPG reports of a DatabaseRole. Two writers
// share it: the instance manager (applied, message, observedGeneration,
// secretResourceVersion) and the operator (the PasswordSecretChange
// condition, clientCertificate); each merge-patches only its fields.
type DatabaseRoleStatus struct {
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	Applied            *bool  `json:"applied,omitempty"`
	Message            string `json:"message,omitempty"`
	// SecretResourceVersion is the password Secret's resourceVersion the
	// role's password was last set from.
	SecretResourceVersion string                  `json:"secretResourceVersion,omitempty"`
	ClientCertificate     *ClientCertificateState `json:"clientCertificate,omitempty"`
	// atomic, as in CNPG's schema (no list-type declared).
	// +listType=atomic
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ClientCertificateState is the observed state of a DatabaseRole's
// generated client certificate.
type ClientCertificateState struct {
	// Expiration is RFC 3339.
	Expiration string `json:"expiration,omitempty"`
	Message    string `json:"message,omitempty"`
}

// DatabaseRoleList is a list of DatabaseRoles.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type DatabaseRoleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DatabaseRole `json:"items"`
}
