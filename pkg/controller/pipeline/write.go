package pipeline

import (
	"context"
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// StatusObject is one of setpoint's kinds, of type T with status S, as the
// status write sees it.
type StatusObject[T any, S any] interface {
	metav1.Object
	// StoredStatus is the status the object carries; WithStatus a copy
	// of it carrying st.
	StoredStatus() *S
	WithStatus(st *S) T
}

// StatusUpdater is a typed client's status subresource.
type StatusUpdater[T any] interface {
	UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// Expectations learn of the resourceVersion a write replaced, so a pass
// on the stale cache is skipped (cachelag.Expectations).
type Expectations interface {
	Updated(key types.NamespacedName, before, after string)
}

// StatusWriter is the one status write of a pass for objects of type T
// with status S: nothing when the status is unchanged, else one update.
type StatusWriter[T StatusObject[T, S], S any] struct {
	// Update writes the status subresource and returns the object stored.
	Update func(ctx context.Context, obj T) (T, error)
	Expect Expectations
	// Announce tells people of the change from obj's status to st (an
	// Event for the transitions they care about: StatusEvent).
	Announce func(ctx context.Context, obj T, st *S)
}

// NewStatusWriter is the status write of the objects client serves (a
// typed clientset's namespaced getter, such as PostgresClusters), as
// fieldManager.
func NewStatusWriter[T StatusObject[T, S], S any, C StatusUpdater[T]](client func(namespace string) C, fieldManager string,
	expect Expectations, announce func(ctx context.Context, obj T, st *S)) StatusWriter[T, S] {
	return StatusWriter[T, S]{
		Update: func(ctx context.Context, obj T) (T, error) {
			return client(obj.GetNamespace()).UpdateStatus(ctx, obj, metav1.UpdateOptions{FieldManager: fieldManager})
		},
		Expect:   expect,
		Announce: announce,
	}
}

// Write writes st unless obj already carries it, and returns the object
// as stored, so a later write in the same pass carries the current
// resourceVersion.
func (w StatusWriter[T, S]) Write(ctx context.Context, obj T, st *S) (T, error) {
	if apiequality.Semantic.DeepEqual(obj.StoredStatus(), st) {
		return obj, nil
	}
	out, err := w.Update(ctx, obj.WithStatus(st))
	if err != nil {
		var none T
		return none, fmt.Errorf("update status: %w", err)
	}
	key := types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	w.Expect.Updated(key, obj.GetResourceVersion(), out.GetResourceVersion())
	w.Announce(ctx, obj, st)
	return out, nil
}
