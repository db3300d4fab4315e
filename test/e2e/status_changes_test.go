package e2e_test

import (
	"context"
	"sync"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// statusChanges counts, from its start, the changes of one object's
// status that a watch delivers: each is one status write (the API server
// does not store an update that changes nothing). Writes of metadata, such
// as a test's own annotations, are not counted.
type statusChanges struct {
	mu     sync.Mutex
	n      int
	seen   []string // a short description of each change
	closed bool
	stop   func()
}

func (c *statusChanges) count() (int, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return c.n, append(c.seen, "(watch closed early: the count is incomplete)")
	}
	return c.n, append([]string(nil), c.seen...)
}

func (c *statusChanges) open() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.closed
}

// watchStatus starts counting status changes of an object, reading each
// event's status with status and describing it with describe.
func watchStatus[T any](t *testing.T, w watch.Interface, status func(T) any, describe func(T) string) *statusChanges {
	t.Helper()
	c := &statusChanges{stop: w.Stop}
	t.Cleanup(w.Stop)
	go func() {
		var last any
		first := true
		for ev := range w.ResultChan() {
			obj, ok := ev.Object.(T)
			if !ok || ev.Type != watch.Modified && ev.Type != watch.Added {
				continue
			}
			st := status(obj)
			c.mu.Lock()
			if !first && !apiequality.Semantic.DeepEqual(last, st) {
				c.n++
				c.seen = append(c.seen, describe(obj))
			}
			c.mu.Unlock()
			last, first = st, false
		}
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
	}()
	return c
}

// watchClusterStatus counts the status writes of a PostgresCluster from
// now on (the watch starts with the object as it is, which is not counted).
func watchClusterStatus(t *testing.T, ns, name string) *statusChanges {
	t.Helper()
	w, err := pg.PostgresV1alpha1().PostgresClusters(ns).Watch(context.WithoutCancel(t.Context()),
		metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatalf("watch PostgresCluster %s: %v", name, err)
	}
	// Without a resourceVersion the watch starts at the current object:
	// its first event (ADDED) is the baseline.
	return watchStatus(t, w, func(c *pgv1.PostgresCluster) any { return c.Status },
		func(c *pgv1.PostgresCluster) string { return string(c.Status.Phase) + " " + readyMessage(c) })
}

// watchCNPGStatus counts the status writes of a CNPG Cluster from now on.
func watchCNPGStatus(t *testing.T, ns, name string) *statusChanges {
	t.Helper()
	w, err := pg.CNPGV1().Clusters(ns).Watch(context.WithoutCancel(t.Context()),
		metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatalf("watch CNPG Cluster %s: %v", name, err)
	}
	return watchStatus(t, w, func(c *cnpgv1.Cluster) any { return c.Status },
		func(c *cnpgv1.Cluster) string { return c.Status.Phase })
}
