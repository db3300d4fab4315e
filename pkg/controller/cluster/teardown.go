package cluster

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// A component decides what becomes of its children when the
// PostgresCluster goes (finalize): a deleter deletes those the deletion
// policy removes before the finalizer goes, a releaser hands those Retain
// keeps to a later PostgresCluster of the same name
// (ownership.Owner.ReleasePatch). Children no component names go with
// the garbage collector, by their owner reference.
type deleter interface {
	Delete(ctx context.Context, t *teardown) error
}

type releaser interface {
	Release(ctx context.Context, t *teardown) error
}

// teardown is one finalizing pass: the cluster, its children as cached,
// and what the components have done so far.
type teardown struct {
	pc   *pgv1.PostgresCluster
	obs  *observation
	deps *deps
	// remaining counts the children deleted but still in the cache.
	remaining int
	// kept names the children released, for the Retained Event.
	kept []string
}

// retain reports whether the policy keeps the cluster's data.
func (t *teardown) retain() bool { return t.pc.Spec.ClusterDeletionPolicy != pgv1.DeletionPolicyDelete }

// deleteChild deletes obj if this cluster controls it, and counts it
// until the cache no longer holds it.
func deleteChild[T any, PT interface {
	*T
	metav1.Object
}](ctx context.Context, t *teardown, kind string, obj PT, del func(context.Context, string, metav1.DeleteOptions) error) error {
	if obj == nil || !ownership.IsControlledBy(obj, t.pc.UID) {
		return nil
	}
	t.remaining++
	if obj.GetDeletionTimestamp() != nil {
		return nil
	}
	if err := del(ctx, obj.GetName(), ownership.DeleteOf(obj)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s %s: %w", kind, obj.GetName(), err)
	}
	return nil
}

// patcher is a typed client's Patch.
type patcher[PT any] func(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (PT, error)

// releaseChild drops this cluster's owner reference from obj and marks
// it retained by this cluster's name, if this cluster controls it.
func releaseChild[T any, PT interface {
	*T
	metav1.Object
}](ctx context.Context, t *teardown, kind string, obj PT, patch patcher[PT]) error {
	if obj == nil || !ownership.IsControlledBy(obj, t.pc.UID) {
		return nil
	}
	body, err := ownerOf(t.pc).ReleasePatch(obj, nil)
	if err != nil {
		return err
	}
	opts := metav1.PatchOptions{FieldManager: fieldManager}
	if _, err := patch(ctx, obj.GetName(), types.MergePatchType, body, opts); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("release %s %s: %w", kind, obj.GetName(), err)
	}
	t.kept = append(t.kept, fmt.Sprintf("%s %s", kind, obj.GetName()))
	return nil
}
