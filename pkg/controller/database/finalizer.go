package database

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// ensureFinalizer adds our finalizer so the deletion policies can run.
func (c *Controller) ensureFinalizer(ctx context.Context, db *pgv1.PostgresDatabase) (*pgv1.PostgresDatabase, error) {
	if slices.Contains(db.Finalizers, Finalizer) {
		return db, nil
	}
	return c.patchFinalizers(ctx, db, append(slices.Clone(db.Finalizers), Finalizer))
}

// patchFinalizers replaces the finalizer list, guarded by resourceVersion
// so a concurrent change is never overwritten.
func (c *Controller) patchFinalizers(ctx context.Context, db *pgv1.PostgresDatabase, finalizers []string) (*pgv1.PostgresDatabase, error) {
	patch, err := controller.FinalizersPatch(db, finalizers)
	if err != nil {
		return nil, err
	}
	out, err := c.pg.PostgresV1alpha1().PostgresDatabases(db.Namespace).Patch(ctx, db.Name, mergePatch, patch, metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return nil, fmt.Errorf("patch finalizers: %w", err)
	}
	return out, nil
}

// finalize runs every database's deletion policy, reporting phase
// Deleting while CNPG drops databases and roles, then lets the object go.
// Without its cluster nothing can be dropped: the finalizer is removed
// with a Warning rather than blocking forever.
func (c *Controller) finalize(ctx context.Context, db *pgv1.PostgresDatabase, obs *observation) (workqueue.Result, error) {
	if !slices.Contains(db.Finalizers, Finalizer) {
		return workqueue.Result{}, nil
	}
	p := newPass(c, db, obs)
	var hs []health
	for _, d := range db.Spec.Databases {
		if h := p.cleanup(ctx, d.Name, policyOf(d)); h.phase != pgv1.PhaseReady {
			hs = append(hs, h)
		}
	}
	for _, name := range obs.removed {
		if p.entries[name] == nil {
			p.entries[name] = &pgv1.DatabaseStatus{Name: name}
		}
		if h := p.cleanup(ctx, name, p.removedPolicy(name)); h.phase != pgv1.PhaseReady {
			hs = append(hs, h)
		}
	}
	if h := worst(hs); h.phase != pgv1.PhaseReady && obs.cluster != nil {
		p.status.Databases = p.orderedEntries()
		p.setPhase(pgv1.PhaseDeleting, h.reason, h.message)
		if err := c.writeStatus(ctx, db, p.status); err != nil {
			return workqueue.Result{}, err
		}
		if h.err != nil {
			return workqueue.Result{}, h.err
		}
		return workqueue.Result{RequeueAfter: cmp.Or(h.requeueAfter, cleanupRecheck)}, nil
	}
	if obs.cluster == nil {
		c.recorder.Eventf(db, corev1.EventTypeWarning, "ClusterGone",
			"PostgresCluster %q not found: kept every database, role and credential whatever the deletionPolicy (a retained CNPG Cluster may still serve them); a PostgresDatabase of this name on a PostgresCluster of that name adopts them", db.Spec.ClusterRef.Name)
	}
	fin := slices.DeleteFunc(slices.Clone(db.Finalizers), func(f string) bool { return f == Finalizer })
	if _, err := c.patchFinalizers(ctx, db, fin); err != nil && !apierrors.IsNotFound(err) {
		return workqueue.Result{}, err
	}
	klog.FromContext(ctx).V(2).Info("Finalized", "database", klog.KObj(db))
	return workqueue.Result{}, nil
}
