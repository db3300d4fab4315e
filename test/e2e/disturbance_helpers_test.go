package e2e_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// repairTimeout bounds how long a repair may take. The operators of these
// tests resync once an hour and a Ready object asks for no recheck, so a
// child that comes back within it was brought back by the informer event
// of its deletion or edit.
const repairTimeout = 60 * time.Second

// editor is the field manager of the hand edits: someone else than setpoint.
var editor = metav1.PatchOptions{FieldManager: "e2e-hand-edit"}

// comesBack deletes a child (only the one read: UID precondition) and
// waits until setpoint has created it again: another UID, controlled by
// owner, with the content ok checks. It returns the new child.
func comesBack[T metav1.Object](t *testing.T, what string, owner types.UID,
	get func(context.Context) (T, error), del func(context.Context, metav1.DeleteOptions) error, ok func(T) bool) T {
	t.Helper()
	old, err := get(t.Context())
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	uid := old.GetUID()
	if err := del(t.Context(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil {
		t.Fatalf("delete %s: %v", what, err)
	}
	var got T
	kit.Until(t, repairTimeout, what+" created again", func(ctx context.Context) (bool, error) {
		cur, err := get(ctx)
		if err != nil {
			return false, err
		}
		got = cur
		return cur.GetUID() != uid && cur.GetDeletionTimestamp() == nil && ownership.IsControlledBy(cur, owner) && ok(cur), nil
	})
	return got
}

// editedBack makes a hand edit of a field setpoint owns (edit returns the
// child as edited, which ok must refuse: the edit took) and waits until
// setpoint has set it back on the same object.
func editedBack[T metav1.Object](t *testing.T, what string, get func(context.Context) (T, error), edit func(context.Context) (T, error), ok func(T) bool) {
	t.Helper()
	edited, err := edit(t.Context())
	if err != nil {
		t.Fatalf("edit %s: %v", what, err)
	}
	if ok(edited) {
		t.Fatalf("the edit of %s changed nothing setpoint checks", what)
	}
	kit.Until(t, repairTimeout, what+" set back", func(ctx context.Context) (bool, error) {
		cur, err := get(ctx)
		if err != nil {
			return false, err
		}
		return cur.GetUID() == edited.GetUID() && ok(cur), nil
	})
}
