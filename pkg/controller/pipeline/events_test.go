package pipeline

import (
	"testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func TestPhaseEventOnlyOnTransitionsPeopleCareAbout(t *testing.T) {
	for _, tc := range []struct {
		from, to           pgv1.Phase
		fromReason, reason string
		want               string
	}{
		{"", pgv1.PhasePending, "", "WaitingForCNPGCluster", ""},
		{pgv1.PhasePending, pgv1.PhaseProvisioning, "", "CNPGProvisioning", ""},
		{pgv1.PhaseProvisioning, pgv1.PhaseConfiguring, "", "SpecApplied", ""},
		{pgv1.PhaseConfiguring, pgv1.PhaseReady, "", "AllComponentsReady", "Normal Ready"},
		{pgv1.PhaseReady, pgv1.PhaseReady, "", "AllComponentsReady", ""},
		{pgv1.PhaseReady, pgv1.PhasePending, "", "PostgresUnreachable", "Warning NotReady"},
		{pgv1.PhaseReady, pgv1.PhaseDeleting, "", "Deleting", ""},
		{pgv1.PhasePending, pgv1.PhaseFailed, "", "ClusterConflict", "Warning ClusterConflict"},
		{pgv1.PhaseFailed, pgv1.PhaseFailed, "ClusterConflict", "ClusterConflict", ""},
		{pgv1.PhaseFailed, pgv1.PhaseFailed, "ClusterConflict", "SecretConflict", "Warning SecretConflict"},
	} {
		typ, reason, emit := PhaseEvent(tc.from, tc.to, tc.fromReason, tc.reason)
		got := ""
		if emit {
			got = typ + " " + reason
		}
		if got != tc.want {
			t.Errorf("%s -> %s (%s): %q, want %q", tc.from, tc.to, tc.reason, got, tc.want)
		}
	}
}
