package testkit

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CountEvents counts the Events of reason on object (an Event's count,
// at least 1, since the recorder folds repeats into one).
func (k Kit) CountEvents(t testing.TB, ns, object, reason string) int {
	t.Helper()
	evs, err := k.Kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + object + ",reason=" + reason})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs.Items {
		n += int(max(e.Count, 1))
	}
	return n
}

// WaitEvents waits until there are n Events of reason on object, and
// fails at once on more: an Event too many is not undone by waiting.
func (k Kit) WaitEvents(t testing.TB, ns, object, reason string, n int, timeout time.Duration) {
	t.Helper()
	k.Until(t, timeout, fmt.Sprintf("%d %s Event(s) on %s", n, reason, object), func(context.Context) (bool, error) {
		got := k.CountEvents(t, ns, object, reason)
		if got > n {
			return false, fmt.Errorf("%d %s Events, want %d", got, reason, n)
		}
		return got == n, nil
	})
}
