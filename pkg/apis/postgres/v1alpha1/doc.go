// Package v1alpha1 is the setpoint API: PostgresClusterClass (platform
// presets), PostgresCluster (a Postgres cluster run by CloudNativePG) and
// PostgresDatabase (an application's databases, roles, credentials and
// privileges on such a cluster).
//
// Validation lives next to the fields as OpenAPI and CEL markers; the CRDs in
// manifests/crd are generated from them by `make manifests`.
//
// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +groupName=postgres.setpoint.dev
// +kubebuilder:object:generate=false
package v1alpha1
