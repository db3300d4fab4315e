package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Database is CNPG's declarative database.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Database struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DatabaseSpec   `json:"spec"`
	Status DatabaseStatus `json:"status,omitempty"`
}

// Database reclaim policies.
const (
	DatabaseReclaimRetain = "retain"
	DatabaseReclaimDelete = "delete"
)

// DatabaseSpec is the subset of CNPG's database spec setpoint sets.
type DatabaseSpec struct {
	Cluster               LocalObjectReference `json:"cluster"`
	Name                  string               `json:"name"`
	Owner                 string               `json:"owner"`
	Ensure                EnsureOption         `json:"ensure,omitempty"`
	DatabaseReclaimPolicy string               `json:"databaseReclaimPolicy,omitempty"`
	// atomic, as in CNPG's schema (no list-type declared there).
	// +listType=atomic
	Extensions []ExtensionSpec `json:"extensions,omitempty"`
}

// ExtensionSpec is one extension of a database.
type ExtensionSpec struct {
	Name    string       `json:"name"`
	Ensure  EnsureOption `json:"ensure,omitempty"`
	Version string       `json:"version,omitempty"`
	Schema  string       `json:"schema,omitempty"`
}

// DatabaseStatus is what CNPG reports of a database.
type DatabaseStatus struct {
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	Applied            *bool  `json:"applied,omitempty"`
	Message            string `json:"message,omitempty"`
	// Extensions reports each extension of the spec: when one fails,
	// Message says only "database object reconciliation failed" and the
	// reason is here. Atomic, as in CNPG's schema.
	// +listType=atomic
	Extensions []DatabaseObjectStatus `json:"extensions,omitempty"`
}

// DatabaseObjectStatus is CNPG's verdict on one object of a Database (an
// extension, for setpoint).
type DatabaseObjectStatus struct {
	Name    string `json:"name"`
	Applied bool   `json:"applied"`
	Message string `json:"message,omitempty"`
}

// DatabaseList is a list of Databases.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type DatabaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Database `json:"items"`
}
