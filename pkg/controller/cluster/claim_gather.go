package cluster

import (
	"time"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// claimGatherLimit is how long a claim may wait for the claims of its
// cluster's other databases that are on their way. When a cluster becomes
// Ready its new databases start together, but under load their Secrets —
// the claims — arrive spread over seconds; applied as they come, a
// cluster applied its roles and wrote its status three times or more for
// ten databases. Waiting for the stragglers, up to this long from the
// first claim, makes that one apply and one status write. A database
// created on a running cluster has no such siblings and waits only
// roleBatchDelay.
const claimGatherLimit = 2 * time.Second

// claimsOnTheirWay reports whether some PostgresDatabase of cluster k is
// expected to claim its roles soon: it is not being deleted, asks for
// databases, has claimed nothing yet, and has not reported on its current
// generation. A database that has reported and still claims nothing is
// held up by something its status names (a Secret that is not ours, a
// conflict); waiting for it would only delay the others.
func (c *Controller) claimsOnTheirWay(k workqueue.Key) bool {
	for _, db := range controller.ListDatabasesOf(c.databases, k.Namespace, k.Name) {
		if db.DeletionTimestamp != nil || len(db.Spec.Databases) == 0 || db.Status.ObservedGeneration == db.Generation {
			continue
		}
		if !c.hasClaimed(db) {
			return true
		}
	}
	return false
}

// hasClaimed reports whether db asks its cluster for a role already.
func (c *Controller) hasClaimed(db *pgv1.PostgresDatabase) bool {
	placed, err := c.placedSecrets(db.Namespace, []*pgv1.PostgresDatabase{db})
	if err != nil {
		return true // cannot tell: do not hold the others back
	}
	o := &observation{placed: placed}
	for _, r := range intentOf(db, func(string) bool { return false }, o.placedFor(db)) {
		if r.Ensure == pgv1.RoleEnsurePresent {
			return true
		}
	}
	return false
}
