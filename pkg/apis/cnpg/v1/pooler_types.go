package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
	// Template is where PgBouncer's Pods run; absent without a placement.
	Template *PoolerTemplate `json:"template,omitempty"`
}

// PoolerTemplate is the subset of the Pooler's Pod template setpoint
// writes: placement only. CloudNativePG builds the PgBouncer Deployment's
// Pods from it and fills in the rest.
type PoolerTemplate struct {
	Spec PoolerPodSpec `json:"spec"`
}

// PoolerPodSpec is the placement part of a Pod spec.
type PoolerPodSpec struct {
	// CloudNativePG's schema requires containers: setpoint names only the
	// pgbouncer container, and CloudNativePG fills in its image and the
	// rest (it never overwrites what the template sets, and this sets
	// nothing else).
	// +listType=map
	// +listMapKey=name
	Containers   []ContainerName   `json:"containers"`
	Affinity     *corev1.Affinity  `json:"affinity,omitempty"`
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// +listType=atomic
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	PriorityClassName         string                            `json:"priorityClassName,omitempty"`
}

// ContainerName names a container of a template, and nothing else of it.
type ContainerName struct {
	Name string `json:"name"`
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
