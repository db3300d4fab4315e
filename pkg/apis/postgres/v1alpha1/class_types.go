package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// PostgresClusterClass is a preset a platform team publishes: the default
// size, version, configuration, pooling and backup of the PostgresClusters
// that name it. A cluster overrides any value field by field.
//
// +genclient
// +genclient:nonNamespaced
// +genclient:noStatus
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=pgclass,categories=setpoint;postgres
// +kubebuilder:printcolumn:name="Instances",type=integer,JSONPath=`.spec.instances`
// +kubebuilder:printcolumn:name="Version",type=integer,JSONPath=`.spec.postgresVersion`
// +kubebuilder:printcolumn:name="Pooler",type=boolean,JSONPath=`.spec.connectionPooler.enabled`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type PostgresClusterClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the preset values.
	Spec PostgresClusterClassSpec `json:"spec"`
}

// PostgresClusterClassSpec is the preset: every ClusterSettings field.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.imageName) && has(self.imageCatalog))",message="imageName and imageCatalog both name the image: set one (imageCatalog pins a fleet's images, imageName is for a one-off image)"
// +kubebuilder:validation:XValidation:rule="!has(self.durability) || !has(self.durability.mode) || self.durability.mode != 'Synchronous' || !has(self.instances) || self.instances > (has(self.durability.standbys) ? self.durability.standbys : 1)",message="durability Synchronous needs more instances than durability.standbys (default 1): the primary is not its own standby",fieldPath=".durability"
type PostgresClusterClassSpec struct {
	ClusterSettings `json:",inline"`
}

// PostgresClusterClassList is a list of PostgresClusterClasses.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type PostgresClusterClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []PostgresClusterClass `json:"items"`
}
