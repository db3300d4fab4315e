package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
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
	remaining, err := c.deleteOwned(ctx, pc)
	if err != nil {
		return workqueue.Result{}, err
	}
	if remaining > 0 {
		return workqueue.Result{RequeueAfter: provisionRecheck}, nil
	}
	if pc.Spec.ClusterDeletionPolicy != pgv1.DeletionPolicyDelete {
		kept, err := c.release(ctx, pc)
		if err != nil {
			return workqueue.Result{}, err
		}
		if len(kept) > 0 {
			c.deps.recorder.Eventf(pc, corev1.EventTypeNormal, pgv1.EventRetained, "kept %s", strings.Join(kept, ", "))
		}
	} else {
		c.deps.recorder.Eventf(pc, corev1.EventTypeNormal, pgv1.EventDeleted, "deleted CNPG Cluster %s and its children", name)
	}
	if err := controller.RemoveFinalizer(ctx, c.deps.pg.PostgresV1alpha1().PostgresClusters(ns), pc, Finalizer); err != nil {
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
	del := func(exists bool, owned metav1.Object, do func(metav1.DeleteOptions) error) error {
		if !exists || !controller.IsControlledBy(owned, pc.UID) {
			return nil
		}
		remaining++
		if owned.GetDeletionTimestamp() != nil {
			return nil
		}
		if err := do(controller.DeleteOf(owned)); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	}
	cnpg := c.deps.pg.CNPGV1()
	for _, s := range []string{poolerRWSuffix, poolerROSuffix} {
		p, _ := c.poolers.Poolers(ns).Get(name + s)
		if err := del(p != nil, p, func(opts metav1.DeleteOptions) error { return cnpg.Poolers(ns).Delete(ctx, name+s, opts) }); err != nil {
			return 0, fmt.Errorf("delete pooler: %w", err)
		}
	}
	if pc.Spec.ClusterDeletionPolicy != pgv1.DeletionPolicyDelete {
		return remaining, nil
	}
	for _, s := range []string{backupSuffix, snapshotSuffix} {
		b, _ := c.scheduledBackups.ScheduledBackups(ns).Get(name + s)
		if err := del(b != nil, b, func(opts metav1.DeleteOptions) error { return cnpg.ScheduledBackups(ns).Delete(ctx, name+s, opts) }); err != nil {
			return 0, fmt.Errorf("delete scheduled backup: %w", err)
		}
	}
	if o, _ := c.objectStores.ObjectStores(ns).Get(name + objectStoreSuffix); o != nil {
		if err := del(true, o, func(opts metav1.DeleteOptions) error {
			return c.deps.pg.BarmanCloudV1().ObjectStores(ns).Delete(ctx, o.Name, opts)
		}); err != nil {
			return 0, fmt.Errorf("delete object store: %w", err)
		}
	}
	cl, _ := c.cnpgClusters.Clusters(ns).Get(name)
	if err := del(cl != nil, cl, func(opts metav1.DeleteOptions) error { return cnpg.Clusters(ns).Delete(ctx, name, opts) }); err != nil {
		return 0, fmt.Errorf("delete CNPG cluster: %w", err)
	}
	return remaining, nil
}

// release hands what Retain keeps — the CNPG Cluster, the superuser
// Secret, the ObjectStore and ScheduledBackups that keep archiving and
// backing it up, and the PodMonitor that keeps its metrics scraped — to a
// later PostgresCluster of the same name: our owner
// reference goes (so the garbage collector leaves them), other references
// stay, and the retained marks name this cluster, so that nobody else can
// adopt them.
func (c *Controller) release(ctx context.Context, pc *pgv1.PostgresCluster) ([]string, error) {
	ns, name := pc.Namespace, pc.Name
	o := ownerOf(pc)
	var kept []string
	patch := func(kind string, obj metav1.Object, do func([]byte) error) error {
		if obj == nil || !controller.IsControlledBy(obj, pc.UID) {
			return nil
		}
		body, err := o.ReleasePatch(obj, nil)
		if err != nil {
			return err
		}
		if err := do(body); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("release %s %s: %w", kind, obj.GetName(), err)
		}
		kept = append(kept, fmt.Sprintf("%s %s", kind, obj.GetName()))
		return nil
	}
	opts := metav1.PatchOptions{FieldManager: fieldManager}
	cnpg := c.deps.pg.CNPGV1()
	if cl, _ := c.cnpgClusters.Clusters(ns).Get(name); cl != nil {
		if err := patch("CNPG Cluster", cl, func(b []byte) error {
			_, err := cnpg.Clusters(ns).Patch(ctx, name, types.MergePatchType, b, opts)
			return err
		}); err != nil {
			return nil, err
		}
	}
	if s, _ := c.secrets.Secrets(ns).Get(name + superuserSuffix); s != nil {
		if err := patch("Secret", s, func(b []byte) error {
			_, err := c.deps.kube.CoreV1().Secrets(ns).Patch(ctx, s.Name, types.MergePatchType, b, opts)
			return err
		}); err != nil {
			return nil, err
		}
	}
	if os, _ := c.objectStores.ObjectStores(ns).Get(name + objectStoreSuffix); os != nil {
		if err := patch("ObjectStore", os, func(b []byte) error {
			_, err := c.deps.pg.BarmanCloudV1().ObjectStores(ns).Patch(ctx, os.Name, types.MergePatchType, b, opts)
			return err
		}); err != nil {
			return nil, err
		}
	}
	if pm, _ := c.podMonitors.PodMonitors(ns).Get(name + podMonitorSuffix); pm != nil {
		if err := patch("PodMonitor", pm, func(b []byte) error {
			_, err := c.deps.pg.MonitoringV1().PodMonitors(ns).Patch(ctx, pm.Name, types.MergePatchType, b, opts)
			return err
		}); err != nil {
			return nil, err
		}
	}
	for _, s := range []string{backupSuffix, snapshotSuffix} {
		if b, _ := c.scheduledBackups.ScheduledBackups(ns).Get(name + s); b != nil {
			if err := patch("ScheduledBackup", b, func(body []byte) error {
				_, err := cnpg.ScheduledBackups(ns).Patch(ctx, b.Name, types.MergePatchType, body, opts)
				return err
			}); err != nil {
				return nil, err
			}
		}
	}
	return kept, nil
}
