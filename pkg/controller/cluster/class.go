package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// ClassFinalizer keeps a PostgresClusterClass while PostgresClusters use
// it. Without it, deleting a class would leave every cluster of it unable
// to resolve its settings (Failed ClassNotFound) while Postgres keeps
// serving.
const ClassFinalizer = "postgres.setpoint.dev/class-in-use"

// classKey is the queue key of a class: cluster-scoped, so its empty
// namespace never collides with a PostgresCluster's key.
func classKey(name string) workqueue.Key { return workqueue.Key{Name: name} }

// ensureClassFinalizer puts the finalizer on a class a cluster resolved
// from; once per class, so it costs nothing on later passes. A
// namespace-scoped operator leaves classes alone: it sees only its own
// namespaces' clusters, so it could neither tell when a class is unused
// nor share the finalizer with another install.
func (c *Controller) ensureClassFinalizer(ctx context.Context, class *pgv1.PostgresClusterClass) error {
	if class == nil || class.DeletionTimestamp != nil || c.deps.classesReadOnly {
		return nil
	}
	_, err := ownership.AddFinalizer(ctx, c.deps.pg.PostgresV1alpha1().PostgresClusterClasses(), class, ClassFinalizer)
	return ignoreGone(err)
}

func ignoreGone(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// syncClass lets a class that is being deleted go once no PostgresCluster
// uses it; until then an Event names the clusters that hold it. It runs
// when the class changes and whenever a cluster of it is finalized.
func (c *Controller) syncClass(ctx context.Context, name string) (workqueue.Result, error) {
	class, err := c.classes.Get(name)
	if apierrors.IsNotFound(err) {
		return workqueue.Result{}, nil
	}
	if err != nil {
		return workqueue.Result{}, err
	}
	if class.DeletionTimestamp == nil || !slices.Contains(class.Finalizers, ClassFinalizer) || c.deps.classesReadOnly {
		return workqueue.Result{}, nil
	}
	users := informers.ClustersOfClass(c.clusterIndex, name)
	if len(users) > 0 {
		c.deps.recorder.Eventf(class, corev1.EventTypeWarning, pgv1.EventClassInUse,
			"deletion waits until no PostgresCluster uses this class; %d do: %s", len(users), describeKeys(users, 5))
		return workqueue.Result{}, nil // each cluster's finalization wakes us
	}
	if err := ownership.RemoveFinalizer(ctx, c.deps.pg.PostgresV1alpha1().PostgresClusterClasses(), class, ClassFinalizer); err != nil {
		return workqueue.Result{}, err
	}
	klog.FromContext(ctx).V(2).Info("Released PostgresClusterClass", "class", name)
	return workqueue.Result{}, nil
}

func describeKeys(keys []workqueue.Key, limit int) string {
	var parts []string
	for i, k := range keys {
		if i == limit {
			parts = append(parts, fmt.Sprintf("and %d more", len(keys)-limit))
			break
		}
		parts = append(parts, k.String())
	}
	return strings.Join(parts, ", ")
}
