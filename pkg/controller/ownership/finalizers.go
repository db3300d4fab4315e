package ownership

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// FieldManager is the field manager of every write setpoint makes, and its
// user agent (the CNPG Cluster's managed roles have their own manager, see
// the cluster package).
const FieldManager = "setpoint"

// DatabaseFinalizer keeps a PostgresDatabase until each database's
// deletionPolicy has run. The cluster controller reads it too: only a
// PostgresDatabase that carries it may claim roles, so nothing its
// deletion must clean up can start before it is in place.
const DatabaseFinalizer = "postgres.setpoint.dev/database"

// Patcher is the part of a typed client that a metadata patch needs.
type Patcher[PT any] interface {
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (PT, error)
}

// AddFinalizer puts finalizer on obj unless it is there already, and
// returns the object as stored (obj itself when nothing was written).
func AddFinalizer[PT metav1.Object](ctx context.Context, client Patcher[PT], obj PT, finalizer string) (PT, error) {
	if slices.Contains(obj.GetFinalizers(), finalizer) {
		return obj, nil
	}
	return patchFinalizers(ctx, client, obj, append(slices.Clone(obj.GetFinalizers()), finalizer))
}

// RemoveFinalizer takes finalizer off obj; an object already gone is fine.
func RemoveFinalizer[PT metav1.Object](ctx context.Context, client Patcher[PT], obj PT, finalizer string) error {
	if !slices.Contains(obj.GetFinalizers(), finalizer) {
		return nil
	}
	rest := slices.DeleteFunc(slices.Clone(obj.GetFinalizers()), func(f string) bool { return f == finalizer })
	if _, err := patchFinalizers(ctx, client, obj, rest); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// patchFinalizers replaces the finalizer list by a merge patch guarded by
// obj's resourceVersion, so a concurrent change is never overwritten.
func patchFinalizers[PT metav1.Object](ctx context.Context, client Patcher[PT], obj PT, finalizers []string) (PT, error) {
	var zero PT
	if finalizers == nil {
		finalizers = []string{}
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"finalizers": finalizers, "resourceVersion": obj.GetResourceVersion(),
	}})
	if err != nil {
		return zero, fmt.Errorf("encode finalizer patch: %w", err)
	}
	out, err := client.Patch(ctx, obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
	if err != nil {
		return zero, fmt.Errorf("patch finalizers of %s: %w", obj.GetName(), err)
	}
	return out, nil
}
