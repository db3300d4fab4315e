package ownership

import (
	"context"
	"fmt"
	"reflect"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// Marks a Retain deletion leaves on what it keeps. They name the object the
// data was kept for and the cluster it lives on, so that only that object
// (same namespace, kind and name, same cluster) can take it back.
const (
	RetainedLabel = "postgres.setpoint.dev/retained"
	// RetainedForAnnotation is "<Kind>/<name>" of the object that released it.
	RetainedForAnnotation = "postgres.setpoint.dev/retained-for"
	// RetainedClusterAnnotation is the PostgresCluster the data lives on.
	RetainedClusterAnnotation = "postgres.setpoint.dev/retained-cluster"
)

// Standing is what setpoint may do with an existing object.
type Standing int

const (
	// Ours: controlled by the owner's UID. Writes are allowed.
	Ours Standing = iota
	// RetainedForUs: released by a Retain deletion of an object of the
	// same kind and name, on the same cluster. It may be adopted.
	RetainedForUs
	// NotOurs: anything else. Never modified, never deleted.
	NotOurs
)

// Owner is the setpoint object that would own a child: a PostgresCluster
// (Cluster is then its own name) or a PostgresDatabase.
type Owner struct {
	Kind    string
	Name    string
	UID     types.UID
	Cluster string
}

// Judge tells the standing of obj, which exists, towards o.
func (o Owner) Judge(obj metav1.Object) Standing {
	if IsControlledBy(obj, o.UID) {
		return Ours
	}
	if metav1.GetControllerOfNoCopy(obj) != nil {
		return NotOurs
	}
	l, a := obj.GetLabels(), obj.GetAnnotations()
	if l[ManagedByLabel] == ManagedByValue && l[RetainedLabel] == "true" &&
		a[RetainedForAnnotation] == o.retainedFor() && a[RetainedClusterAnnotation] == o.Cluster {
		return RetainedForUs
	}
	return NotOurs
}

func (o Owner) retainedFor() string { return o.Kind + "/" + o.Name }

// RetainedMarks are the labels and annotations a Retain deletion by o
// leaves on what it keeps.
func (o Owner) RetainedMarks() (labels, annotations map[string]string) {
	return map[string]string{RetainedLabel: "true"},
		map[string]string{RetainedForAnnotation: o.retainedFor(), RetainedClusterAnnotation: o.Cluster}
}

// ConflictError refuses a write to an object setpoint cannot prove it
// created. Its message names the object and why, for status.
type ConflictError struct {
	Kind string
	Name string
	Why  string
	// Previous: the object belongs to a deleted object of the owner's kind
	// and name, and goes with it once the garbage collector gets to it —
	// a wait, not a conflict anyone has to resolve.
	Previous bool
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s %q exists and was not created by setpoint for this object (%s); setpoint leaves it untouched: delete or rename it, or use another name",
		e.Kind, e.Name, e.Why)
}

// Conflict explains why obj, which o cannot claim, is someone else's.
func (o Owner) Conflict(kind string, obj metav1.Object) *ConflictError {
	why := "not managed by setpoint"
	previous := false
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		why = fmt.Sprintf("controlled by %s %q, UID %s", ref.Kind, ref.Name, ref.UID)
		if ref.Kind == o.Kind && ref.Name == o.Name {
			why += ", a previous object of this name; it goes with that object"
			previous = true
		}
	} else if holder, ok := tenantHolder(obj); ok {
		why = holder
	} else if a := obj.GetAnnotations(); a[RetainedForAnnotation] != "" {
		why = fmt.Sprintf("retained for %s on cluster %q; only that object may adopt it",
			a[RetainedForAnnotation], a[RetainedClusterAnnotation])
	}
	return &ConflictError{Kind: kind, Name: obj.GetName(), Why: why, Previous: previous}
}

// Check returns nil when o may write obj (ours, retained for it, or
// absent) and the conflict otherwise.
func (o Owner) Check(kind string, obj metav1.Object) *ConflictError {
	// A typed nil pointer (an absent child) is not a nil interface.
	if obj == nil || reflect.ValueOf(obj).IsNil() || o.Judge(obj) != NotOurs {
		return nil
	}
	return o.Conflict(kind, obj)
}

// Live returns cached when the cache holds the object, and otherwise what
// the API server has (nil when nothing). Call it right before creating a
// child: a cache selected by label, or one that lags, must never be the
// reason setpoint writes over an object it did not create.
func Live[T any, PT interface {
	*T
	metav1.Object
}](ctx context.Context, cached PT, get func(context.Context, string, metav1.GetOptions) (PT, error), name string) (PT, error) {
	if cached != nil {
		return cached, nil
	}
	obj, err := get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up %s before writing it: %w", name, err)
	}
	return obj, nil
}

// GetPatcher is the part of a typed client that claiming a child needs.
type GetPatcher[PT any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (PT, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (PT, error)
}

// Claim proves that o may write the child kind/name before it does: it
// returns the child as it stands (nil when it does not exist, asking the
// API server when the cache has nothing), adopts a child retained for o
// (adopted is then true), and returns a *ConflictError for anything else.
func Claim[T any, PT interface {
	*T
	metav1.Object
}](ctx context.Context, o Owner, ref metav1.OwnerReference, kind string, cached PT, client GetPatcher[PT], name, fieldManager string) (cur PT, adopted bool, err error) {
	cur, err = Live(ctx, cached, client.Get, name)
	if err != nil || cur == nil {
		return nil, false, err
	}
	switch o.Judge(cur) {
	case Ours:
		return cur, false, nil
	case RetainedForUs:
		patch, err := o.AdoptPatch(cur, ref)
		if err != nil {
			return nil, false, err
		}
		out, err := client.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
		if err != nil {
			return nil, false, fmt.Errorf("adopt retained %s %s: %w", kind, name, err)
		}
		return out, true, nil
	}
	return nil, false, o.Conflict(kind, cur)
}

// Rechecks of a refused write: the fix (deleting or renaming the other
// object) may send no event we watch; a namesake's child usually goes
// with an event, so its wait is only a safety net.
const (
	ConflictRecheck = time.Minute
	GCRecheck       = 5 * time.Second
)

// Health is where the stage that was refused stands: Failed with reason,
// rechecked slowly, or — for a child of a deleted namesake — a short wait
// for the garbage collector.
func (e *ConflictError) Health(reason string) pipeline.Health {
	if e.Previous {
		return pipeline.Waiting(pgv1.PhasePending, pgv1.ReasonWaitingForGarbageCollection, e.Error(), GCRecheck)
	}
	return pipeline.Failed(reason, e.Error(), ConflictRecheck)
}
