package cnpgsim

import (
	"fmt"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// phaseInvalid is CNPG's phase for a Cluster it cannot run as specified.
const phaseInvalid = "Invalid cluster definition"

// replicaRefusal is why the stand-in does not run c: it does not play
// replica clusters (CNPG's spec.replica naming another primary; setpoint
// never sets replica.enabled), whose server would replay a peer's archive in standby, be
// demoted with a token and promoted with one. Running such a Cluster as a
// primary would pass for a replica that is not one, so it is refused in
// the stand-in's own words; a distributed topology's primary (primary
// naming self) runs as any Cluster. "" when c is not a replica.
func replicaRefusal(c *cnpgv1.Cluster) string {
	rc := c.Spec.ReplicaCluster
	if rc == nil {
		return ""
	}
	self := rc.Self
	if self == "" {
		self = c.Name
	}
	if rc.Primary == "" || rc.Primary == self {
		return ""
	}
	return fmt.Sprintf("cnpgsim: the CNPG stand-in does not play replica clusters (replica.primary %q is not this Cluster, %q); real CloudNativePG does (test/realcnpg)", rc.Primary, self)
}
