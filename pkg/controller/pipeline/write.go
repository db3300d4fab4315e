package pipeline

import (
	"context"
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// StatusWriter is the one status write of a pass for objects of type T
// with status S: nothing when the status is unchanged, else one update.
type StatusWriter[T metav1.Object, S any] struct {
	// Stored is the status obj carries; With a copy of obj carrying st.
	Stored func(obj T) *S
	With   func(obj T, st *S) T
	// Update writes the status subresource and returns the object stored.
	Update func(ctx context.Context, obj T) (T, error)
	// Lag learns of the resourceVersion the write replaced, so a pass on
	// the stale cache is skipped (caches.CacheLag).
	Lag interface {
		Wrote(key types.NamespacedName, before, after string)
	}
	// Announce tells people of the change from obj's status to st (an
	// Event for the transitions they care about: StatusEvent).
	Announce func(ctx context.Context, obj T, st *S)
}

// Write writes st unless obj already carries it, and returns the object
// as stored, so a later write in the same pass carries the current
// resourceVersion.
func (w StatusWriter[T, S]) Write(ctx context.Context, obj T, st *S) (T, error) {
	if apiequality.Semantic.DeepEqual(w.Stored(obj), st) {
		return obj, nil
	}
	out, err := w.Update(ctx, w.With(obj, st))
	if err != nil {
		var none T
		return none, fmt.Errorf("update status: %w", err)
	}
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	w.Lag.Wrote(key, obj.GetResourceVersion(), out.GetResourceVersion())
	w.Announce(ctx, obj, st)
	return out, nil
}
