package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// finalize runs the deletion policy, then lets the object go. Delete
// removes every CNPG object we own (the CNPG Cluster and its data with
// it); Retain keeps the CNPG Cluster and the superuser Secret, without our
// owner references (and what keeps backing up and monitoring them), and
// removes the poolers.
func (c *Controller) finalize(ctx context.Context, pc *pgv1.PostgresCluster) (workqueue.Result, error) {
	if !slices.Contains(pc.Finalizers, Finalizer) {
		return workqueue.Result{}, nil
	}
	logger := klog.FromContext(ctx)
	if pc.Status.Phase != pgv1.PhaseDeleting {
		st := pc.Status.DeepCopy()
		st.Phase = pgv1.PhaseDeleting
		pipeline.SetCondition(&st.Conditions, pc.Generation, pgv1.ConditionReady, false, pgv1.ReasonDeleting,
			fmt.Sprintf("deleting with clusterDeletionPolicy %s", pc.Spec.ClusterDeletionPolicy))
		var err error
		if pc, err = c.writeStatus(ctx, pc, st); err != nil {
			return workqueue.Result{}, err
		}
	}
	ns, name := pc.Namespace, pc.Name
	t, err := c.tearDown(ctx, pc)
	if err != nil {
		return workqueue.Result{}, err
	}
	if t.remaining > 0 {
		return workqueue.Result{RequeueAfter: provisionRecheck}, nil
	}
	if t.retain() {
		if len(t.kept) > 0 {
			c.deps.recorder.Eventf(pc, corev1.EventTypeNormal, pgv1.EventRetained, "kept %s", strings.Join(t.kept, ", "))
		}
	} else {
		c.deps.recorder.Eventf(pc, corev1.EventTypeNormal, pgv1.EventDeleted, "deleted CNPG Cluster %s and its children", name)
	}
	if err := ownership.RemoveFinalizer(ctx, c.deps.pg.PostgresV1alpha1().PostgresClusters(ns), pc, Finalizer); err != nil {
		return workqueue.Result{}, err
	}
	c.cas.Forget(ns, naming.CASecret(name))
	logger.V(2).Info("Finalized", "policy", pc.Spec.ClusterDeletionPolicy)
	return workqueue.Result{}, nil
}

// tearDown reads the cluster's children from the caches and lets each
// component delete or release its own: deletions in reverse pipeline
// order (what was built last goes first), then, under Retain, releases.
func (c *Controller) tearDown(ctx context.Context, pc *pgv1.PostgresCluster) (*teardown, error) {
	o := &observation{}
	if err := c.observeChildren(pc, o); err != nil {
		return nil, err
	}
	t := &teardown{pc: pc, obs: o, deps: c.deps}
	return t, t.run(ctx)
}

// run lets every component delete, then (under Retain, once nothing
// deleted is left) release its children.
func (t *teardown) run(ctx context.Context) error {
	all := components()
	for i := len(all) - 1; i >= 0; i-- {
		if d, ok := all[i].(deleter); ok {
			if err := d.Delete(ctx, t); err != nil {
				return err
			}
		}
	}
	if t.remaining > 0 || !t.retain() {
		return nil
	}
	for _, comp := range all {
		if r, ok := comp.(releaser); ok {
			if err := r.Release(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}
