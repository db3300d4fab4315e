package cluster

import (
	"fmt"
	"time"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// refuseFutureTarget refuses a restore.targetTime later than the moment the
// restore was asked for: the PostgresCluster's creationTimestamp (set by
// the API server; spec.restore can only be set at creation and never
// changes). No WAL exists yet for such a point: Postgres would replay the
// whole archive and stop with "recovery ended before configured recovery
// target was reached", or, once time caught up, restore a point the user
// could not have chosen. CEL has no clock, so the check is ours.
//
// Judging against the creation time rather than the clock keeps the answer
// the same on every pass: a target that was in the future when asked stays
// refused after it has passed (it is a spec error; delete the cluster and
// create it again), and the message, written once, never changes.
//
// Only a cluster whose CNPG Cluster does not exist yet is judged (running
// nil), so a cluster already restored never fails later. now stands in
// for a creation time the API server did not set (objects of tests).
func refuseFutureTarget(pc *pgv1.PostgresCluster, running *cnpgv1.Cluster, now time.Time) error {
	r := pc.Spec.Restore
	if running != nil || r == nil || r.TargetTime == nil {
		return nil
	}
	asked := pc.CreationTimestamp.Time
	if asked.IsZero() {
		asked = now
	}
	target := r.TargetTime.Time
	if !target.After(asked) {
		return nil
	}
	return &specError{pgv1.ReasonRestoreTargetInFuture, fmt.Sprintf(
		"restore.targetTime %s is in the future: it is %s after now (%s, when this cluster was created), and no backup or WAL can exist for it yet; spec.restore is immutable: delete this PostgresCluster and create it again with a targetTime in the past, or without one to replay every archived change",
		target.UTC().Format(time.RFC3339), target.Sub(asked).Round(time.Second), asked.UTC().Format(time.RFC3339))}
}
