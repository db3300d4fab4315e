package database

import (
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
)

// stateRooms names, for each step's state in the pass, the file that may
// touch it: the step's own (docs/adr/0009-components-own-their-pass-state.md;
// the cluster's TestComponentStateWrittenByItsOwner holds its components
// to the same rule with the same checker).
var stateRooms = controllertest.StateRooms{
	"secrets":    controllertest.InFiles("step_secrets.go"),
	"configMaps": controllertest.InFiles("step_configmaps.go"),
	"roles":      controllertest.InFiles("step_roles.go"),
	"databases":  controllertest.InFiles("step_databases.go"),
	"privileges": controllertest.InFiles("step_privileges.go"),
}

// TestStepStateTouchedOnlyByItsStep: what a step carries from its
// Reconcile to its Observe (p.secrets, p.roles, …) is read and written only
// in the step's file. Every field of pass whose type is named *State has
// its room here.
func TestStepStateTouchedOnlyByItsStep(t *testing.T) {
	t.Parallel()
	controllertest.CheckStateRooms(t, ".", stateRooms, "step")
}
