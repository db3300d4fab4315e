package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// TenantsSpec says which namespaces besides its own may place
// PostgresDatabases on a cluster: the namespaces listed, and those whose
// labels the selector matches (docs/adr/0016-shared-clusters-across-namespaces.md).
// A database of another namespace gets Postgres names prefixed with its
// namespace (<namespace with '_' for '-'>_<name>); its DatabaseRoles,
// CNPG Database and the copies of its password Secrets CloudNativePG
// reads live in the cluster's namespace, labelled with the database's
// namespace, name and uid. Admission is checked at every pass: a
// namespace no longer admitted keeps what it has, marked Admitted False,
// and gets no new change until it is admitted again or deletes its
// PostgresDatabase.
//
// +kubebuilder:validation:XValidation:rule="has(self.namespaces) || has(self.namespaceSelector)",message="tenants needs namespaces, namespaceSelector or both"
type TenantsSpec struct {
	// namespaces admitted by name.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespaces []string `json:"namespaces,omitempty"`

	// namespaceSelector admits the namespaces whose labels it matches. An
	// empty selector ({}) matches every namespace.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
}

// ClusterReference names the PostgresCluster a PostgresDatabase lives on.
type ClusterReference struct {
	// name of the PostgresCluster.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// namespace of the PostgresCluster; unset is the PostgresDatabase's
	// own. A cluster of another namespace must admit this one
	// (spec.tenants of the cluster or its class), or the database is
	// refused with reason NamespaceNotAdmitted and nothing is written.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
}

// NamespaceOr is the cluster's namespace for a PostgresDatabase of
// namespace own: Namespace, or own when unset.
func (r ClusterReference) NamespaceOr(own string) string {
	if r.Namespace == "" {
		return own
	}
	return r.Namespace
}
