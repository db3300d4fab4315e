package cluster

import (
	"testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The reasons picked from a table at run time: a contract or a phase
// without an entry would give an empty reason, which the static scan of
// pkg/controller cannot see.

func TestEveryRequiredContractHasAWaitingReason(t *testing.T) {
	t.Parallel()
	for _, c := range components() {
		for _, r := range c.Requires() {
			if r.WaitingReason == "" {
				t.Errorf("component %s requires contract %s, which has no waiting reason", c.Name(), r.Name)
			}
		}
	}
}

func TestEveryWaitingCNPGPhaseHasAReason(t *testing.T) {
	t.Parallel()
	for cnpg, phase := range cnpgPhases {
		if phase == pgv1.PhaseReady || phase == pgv1.PhaseFailed {
			continue
		}
		if cnpgWaitReasons[phase] == "" {
			t.Errorf("CNPG phase %q maps to %s, which has no reason in cnpgWaitReasons", cnpg, phase)
		}
	}
}
