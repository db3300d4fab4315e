package cluster

import (
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
)

// stateRooms names, for each component's state in the pass, the files that
// may touch it: the component's file and the files sharing its prefix
// (docs/adr/0009-components-own-their-pass-state.md).
var stateRooms = controllertest.StateRooms{
	"secret": func(f string) bool {
		return f == "component_secret.go" || strings.HasPrefix(f, "superuser_")
	},
	"provisioner": func(f string) bool {
		return f == "component_provisioner.go" || strings.HasPrefix(f, "provisioner_")
	},
	"certificates": func(f string) bool { return strings.HasPrefix(f, "certificates") },
	"upgrade":      func(f string) bool { return strings.HasPrefix(f, "upgrade") },
	"monitor": func(f string) bool {
		return f == "component_monitor.go" || strings.HasPrefix(f, "monitor_")
	},
}

// TestComponentStateWrittenByItsOwner: a component's state in the pass
// (p.provisioner, p.secret, p.monitor) is read and written only by its own
// files; another component reads what it needs through the owner's
// contract or accessor (observedCNPG, appliedCNPG). Every field of pass
// whose type is a component's state has its room here.
func TestComponentStateWrittenByItsOwner(t *testing.T) {
	controllertest.CheckStateRooms(t, ".", stateRooms, "component")
}
