package database

import (
	"cmp"
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// finalize runs every database's deletion policy, reporting phase
// Deleting while CNPG drops databases and roles, then lets the object go.
// Without its cluster nothing can be dropped: the finalizer is removed
// with a Warning rather than blocking forever.
func (c *Controller) finalize(ctx context.Context, db *pgv1.PostgresDatabase, obs *observation) (workqueue.Result, error) {
	if !slices.Contains(db.Finalizers, Finalizer) {
		return workqueue.Result{}, nil
	}
	p := newPass(&c.deps, db, obs)
	var hs []health
	for _, d := range db.Spec.Databases {
		if h := p.cleanup(ctx, d.Name, policyOf(d)); h.Phase != pgv1.PhaseReady {
			hs = append(hs, h)
		}
	}
	for _, name := range obs.removed {
		if p.entries[name] == nil {
			p.entries[name] = &pgv1.DatabaseStatus{Name: name}
		}
		if h := p.cleanup(ctx, name, p.removedPolicy(name)); h.Phase != pgv1.PhaseReady {
			hs = append(hs, h)
		}
	}
	if h := worst(hs); h.Phase != pgv1.PhaseReady && obs.cluster != nil {
		p.status.Databases = p.orderedEntries()
		p.setPhase(pgv1.PhaseDeleting, h.Reason, h.Message)
		if err := c.writeStatus(ctx, db, p.status); err != nil {
			return workqueue.Result{}, err
		}
		if h.Err != nil {
			return workqueue.Result{}, h.Err
		}
		return workqueue.Result{RequeueAfter: cmp.Or(h.RequeueAfter, cleanupRecheck)}, nil
	}
	if obs.cluster == nil {
		c.recorder.Eventf(db, corev1.EventTypeWarning, pgv1.EventClusterGone,
			"PostgresCluster %q not found: kept every database, role and credential whatever the deletionPolicy (a retained CNPG Cluster may still serve them); a PostgresDatabase of this name on a PostgresCluster of that name adopts them", db.Spec.ClusterRef.Name)
	}
	if err := ownership.RemoveFinalizer(ctx, c.pg.PostgresV1alpha1().PostgresDatabases(db.Namespace), db, Finalizer); err != nil {
		return workqueue.Result{}, err
	}
	klog.FromContext(ctx).V(2).Info("Finalized", "database", klog.KObj(db))
	return workqueue.Result{}, nil
}
