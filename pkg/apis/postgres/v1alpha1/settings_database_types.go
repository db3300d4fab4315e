package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// DatabaseDefaults are what every database on a cluster gets unless its
// PostgresDatabase says otherwise (spec.databases[]).
type DatabaseDefaults struct {
	// statementTimeout is each database's default statement_timeout
	// (see the PostgresDatabase's databases[].statementTimeout, which
	// overrides it). At most 24h; 0s means no timeout.
	// +optional
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('24h')",message="statementTimeout must be between 0s (no timeout) and 24h"
	StatementTimeout *metav1.Duration `json:"statementTimeout,omitempty"`
}
