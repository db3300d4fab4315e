package cluster

import (
	"time"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// unprovisionedClaimDelay is how long a role claim event (a
// PostgresDatabase, or the creation of its credential Secrets) waits
// before it wakes a cluster whose CNPG Cluster is not ready yet. Role
// claims cannot be applied before (the managedRoles component runs after
// the provisioner), and the event that makes the cluster ready (CNPG's
// status) wakes it with every claim made meanwhile; each earlier pass only
// looks at the same provisioning state again (and asks for CNPG's CA
// Secret, which does not exist yet). The event is never dropped: the pass
// still comes, later.
const unprovisionedClaimDelay = provisionRecheck

// claimDelay is the delay of a role claim event for cluster k: once the
// cluster's provisioner is ready (as its status last said) roleBatchDelay,
// or longer right after an apply of its roles (claimPace) or while other
// databases of the cluster are about to claim too (claim_gather.go);
// unprovisionedClaimDelay before. The queue keeps the earliest of the
// delays asked for a key, so the last straggler's short delay ends the
// wait of the claims before it.
func (c *Controller) claimDelay(k workqueue.Key) time.Duration {
	pc, err := c.clusters.PostgresClusters(k.Namespace).Get(k.Name)
	if err != nil || pc.DeletionTimestamp != nil ||
		controller.ConditionTrue(pc.Status.Conditions, pgv1.ConditionProvisionerReady, pc.Generation) {
		d := c.deps.pace.delay(k)
		if c.claimsOnTheirWay(k) {
			d = max(d, c.deps.pace.gather(k))
		}
		return d
	}
	return unprovisionedClaimDelay
}
