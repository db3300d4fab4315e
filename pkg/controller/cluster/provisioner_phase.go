package cluster

import (
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// CNPG's phase strings (cnpg-facts.md), mapped onto our phases. A string
// not listed here — a newer CNPG, a typo — maps to Pending, never Ready.
var cnpgPhases = map[string]pgv1.Phase{
	"Cluster in healthy state": pgv1.PhaseReady,

	"Setting up primary":                         pgv1.PhaseProvisioning,
	"Creating a new replica":                     pgv1.PhaseProvisioning,
	"Waiting for the instances to become active": pgv1.PhaseProvisioning,

	"Switchover in progress":                                   pgv1.PhaseConfiguring,
	"Upgrading cluster":                                        pgv1.PhaseConfiguring,
	"Upgrading Postgres major version":                         pgv1.PhaseConfiguring,
	"Cluster upgrade delayed":                                  pgv1.PhaseConfiguring,
	"Online upgrade in progress":                               pgv1.PhaseConfiguring,
	"Applying configuration":                                   pgv1.PhaseConfiguring,
	"Primary instance is being restarted in-place":             pgv1.PhaseConfiguring,
	"Primary instance is being restarted without a switchover": pgv1.PhaseConfiguring,
	"Promoting to primary cluster":                             pgv1.PhaseConfiguring,

	"Failing over": pgv1.PhasePending,
	"":             pgv1.PhasePending,

	"Cluster is unrecoverable and needs manual intervention":                                  pgv1.PhaseFailed,
	"Waiting for user action":                                                                 pgv1.PhaseFailed,
	"Cluster cannot proceed to reconciliation due to an unknown plugin being required":        pgv1.PhaseFailed,
	"Cluster cannot proceed to reconciliation due to an error while interacting with plugins": pgv1.PhaseFailed,
	"Cluster has incomplete or invalid image catalog":                                         pgv1.PhaseFailed,
	"Cluster cannot execute instance online upgrade due to missing architecture binary":       pgv1.PhaseFailed,
	"Unable to create required cluster objects":                                               pgv1.PhaseFailed,
	"Invalid cluster definition":                                                              pgv1.PhaseFailed,
}

// cnpgWaitReasons are ProvisionerReady's reasons while CNPG works, by the
// phase mapPhase gives (Ready and Failed have reasons of their own).
var cnpgWaitReasons = map[pgv1.Phase]string{
	pgv1.PhaseProvisioning: pgv1.ReasonCNPGProvisioning,
	pgv1.PhaseConfiguring:  pgv1.ReasonCNPGConfiguring,
	pgv1.PhasePending:      pgv1.ReasonCNPGPending,
}

// mapPhase returns our phase for a CNPG phase and whether CNPG's string was
// known.
func mapPhase(cnpgPhase string) (pgv1.Phase, bool) {
	p, ok := cnpgPhases[cnpgPhase]
	if !ok {
		return pgv1.PhasePending, false
	}
	return p, true
}

// MapCNPGPhase is mapPhase for the real-CNPG tier, which checks that every
// phase real CloudNativePG reports is one setpoint knows.
func MapCNPGPhase(cnpgPhase string) (pgv1.Phase, bool) { return mapPhase(cnpgPhase) }
