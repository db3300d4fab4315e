package cluster

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// ensureFinalizer adds our finalizer so the deletion policy can run.
func (c *Controller) ensureFinalizer(ctx context.Context, pc *pgv1.PostgresCluster) (*pgv1.PostgresCluster, error) {
	if slices.Contains(pc.Finalizers, Finalizer) {
		return pc, nil
	}
	return c.patchFinalizers(ctx, pc, append(slices.Clone(pc.Finalizers), Finalizer))
}

// patchFinalizers replaces the finalizer list.
func (c *Controller) patchFinalizers(ctx context.Context, pc *pgv1.PostgresCluster, finalizers []string) (*pgv1.PostgresCluster, error) {
	patch, err := controller.FinalizersPatch(pc, finalizers)
	if err != nil {
		return nil, err
	}
	out, err := c.deps.pg.PostgresV1alpha1().PostgresClusters(pc.Namespace).Patch(ctx, pc.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return nil, fmt.Errorf("patch finalizers: %w", err)
	}
	return out, nil
}

// finalize runs the deletion policy, then lets the object go. Delete
// removes every CNPG object we own (the CNPG Cluster and its data with
// it); Retain keeps the CNPG Cluster and the superuser Secret, without our
// owner references, and removes the poolers.
func (c *Controller) finalize(ctx context.Context, pc *pgv1.PostgresCluster) (workqueue.Result, error) {
	if !slices.Contains(pc.Finalizers, Finalizer) {
		return workqueue.Result{}, nil
	}
	logger := klog.FromContext(ctx)
	if pc.Status.Phase != pgv1.PhaseDeleting {
		st := pc.Status.DeepCopy()
		st.Phase = pgv1.PhaseDeleting
		controller.SetCondition(&st.Conditions, pc.Generation, pgv1.ConditionReady, false, "Deleting",
			fmt.Sprintf("deleting with clusterDeletionPolicy %s", pc.Spec.ClusterDeletionPolicy))
		if err := c.writeStatus(ctx, pc, st); err != nil {
			return workqueue.Result{}, err
		}
	}
	ns, name := pc.Namespace, pc.Name
	remaining, err := c.deleteOwned(ctx, pc)
	if err != nil {
		return workqueue.Result{}, err
	}
	if remaining > 0 {
		return workqueue.Result{RequeueAfter: provisionRecheck}, nil
	}
	if pc.Spec.ClusterDeletionPolicy != pgv1.DeletionPolicyDelete {
		if err := c.release(ctx, pc); err != nil {
			return workqueue.Result{}, err
		}
		c.deps.recorder.Eventf(pc, corev1.EventTypeNormal, "Retained", "kept CNPG Cluster %s and Secret %s%s", name, name, superuserSuffix)
	} else {
		c.deps.recorder.Eventf(pc, corev1.EventTypeNormal, "Deleted", "deleted CNPG Cluster %s and its children", name)
	}
	fin := slices.DeleteFunc(slices.Clone(pc.Finalizers), func(f string) bool { return f == Finalizer })
	if _, err := c.patchFinalizers(ctx, pc, fin); err != nil && !apierrors.IsNotFound(err) {
		return workqueue.Result{}, err
	}
	c.cas.Forget(ns, name+caSuffix)
	logger.V(2).Info("Finalized", "policy", pc.Spec.ClusterDeletionPolicy)
	return workqueue.Result{}, nil
}

// deleteOwned deletes the children the policy removes and returns how many
// are still in the cache.
func (c *Controller) deleteOwned(ctx context.Context, pc *pgv1.PostgresCluster) (int, error) {
	ns, name := pc.Namespace, pc.Name
	remaining := 0
	del := func(exists bool, owned metav1.Object, do func() error) error {
		if !exists || !controller.IsControlledBy(owned, pc.UID) {
			return nil
		}
		remaining++
		if owned.GetDeletionTimestamp() != nil {
			return nil
		}
		if err := do(); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	}
	opts := metav1.DeleteOptions{}
	cnpg := c.deps.pg.CNPGV1()
	for _, s := range []string{poolerRWSuffix, poolerROSuffix} {
		p, _ := c.poolers.Poolers(ns).Get(name + s)
		if err := del(p != nil, p, func() error { return cnpg.Poolers(ns).Delete(ctx, name+s, opts) }); err != nil {
			return 0, fmt.Errorf("delete pooler: %w", err)
		}
	}
	if pc.Spec.ClusterDeletionPolicy != pgv1.DeletionPolicyDelete {
		return remaining, nil
	}
	for _, s := range []string{backupSuffix, snapshotSuffix} {
		b, _ := c.scheduledBackups.ScheduledBackups(ns).Get(name + s)
		if err := del(b != nil, b, func() error { return cnpg.ScheduledBackups(ns).Delete(ctx, name+s, opts) }); err != nil {
			return 0, fmt.Errorf("delete scheduled backup: %w", err)
		}
	}
	if o, _ := c.objectStores.ObjectStores(ns).Get(name + objectStoreSuffix); o != nil {
		if err := del(true, o, func() error {
			return c.deps.pg.BarmanCloudV1().ObjectStores(ns).Delete(ctx, o.Name, opts)
		}); err != nil {
			return 0, fmt.Errorf("delete object store: %w", err)
		}
	}
	cl, _ := c.cnpgClusters.Clusters(ns).Get(name)
	if err := del(cl != nil, cl, func() error { return cnpg.Clusters(ns).Delete(ctx, name, opts) }); err != nil {
		return 0, fmt.Errorf("delete CNPG cluster: %w", err)
	}
	return remaining, nil
}

// release removes our owner references from what Retain keeps, so the
// garbage collector leaves it and a new PostgresCluster can adopt it.
func (c *Controller) release(ctx context.Context, pc *pgv1.PostgresCluster) error {
	ns, name := pc.Namespace, pc.Name
	patch := []byte(`{"metadata":{"ownerReferences":null}}`)
	opts := metav1.PatchOptions{FieldManager: fieldManager}
	if cl, _ := c.cnpgClusters.Clusters(ns).Get(name); cl != nil && controller.IsControlledBy(cl, pc.UID) {
		if _, err := c.deps.pg.CNPGV1().Clusters(ns).Patch(ctx, name, types.MergePatchType, patch, opts); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("release CNPG cluster: %w", err)
		}
	}
	if s, _ := c.secrets.Secrets(ns).Get(name + superuserSuffix); s != nil && controller.IsControlledBy(s, pc.UID) {
		if _, err := c.deps.kube.CoreV1().Secrets(ns).Patch(ctx, s.Name, types.MergePatchType, patch, opts); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("release superuser secret: %w", err)
		}
	}
	return nil
}
