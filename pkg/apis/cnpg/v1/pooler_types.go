package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Pooler is CNPG's PgBouncer deployment.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Pooler struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PoolerSpec   `json:"spec"`
	Status PoolerStatus `json:"status,omitempty"`
}

// PoolerType is the service a pooler fronts.
type PoolerType string

const (
	PoolerTypeRW PoolerType = "rw"
	PoolerTypeRO PoolerType = "ro"
)

// PoolerSpec is the subset of CNPG's pooler spec setpoint sets.
type PoolerSpec struct {
	Cluster   LocalObjectReference `json:"cluster"`
	Type      PoolerType           `json:"type,omitempty"`
	Instances *int32               `json:"instances,omitempty"`
	PgBouncer *PgBouncerSpec       `json:"pgbouncer"`
}

// PgBouncerSpec configures PgBouncer.
type PgBouncerSpec struct {
	PoolMode   string            `json:"poolMode,omitempty"`
	Parameters map[string]string `json:"parameters,omitempty"`
}

// PoolerStatus is what CNPG reports of a pooler.
type PoolerStatus struct {
	Instances int32  `json:"instances,omitempty"`
	Phase     string `json:"phase,omitempty"`
}

// PoolerList is a list of Poolers.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type PoolerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Pooler `json:"items"`
}
