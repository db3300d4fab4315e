package testkit

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// ReadyLatencies creates n PostgresDatabases on cluster, one after
// another (name-0 … name-<n-1>, the i-th holding database(i)), and
// returns for each the time from its create call to the watch event that
// shows it Ready at its generation. One at a time, so each is a new
// database on an idle cluster, not a place in a queue; seen by a watch,
// not a poll, whose interval would be most of the figure.
func (k Kit) ReadyLatencies(t testing.TB, ns, name, cluster string, n int, timeout time.Duration, database func(i int) pgv1.DatabaseSpec) []time.Duration {
	t.Helper()
	out := make([]time.Duration, 0, n)
	for i := range n {
		obj := fmt.Sprintf("%s-%d", name, i)
		d := &pgv1.PostgresDatabase{
			ObjectMeta: metav1.ObjectMeta{Name: obj, Namespace: ns},
			Spec:       pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.LocalObjectReference{Name: cluster}, Databases: []pgv1.DatabaseSpec{database(i)}},
		}
		start := time.Now()
		created, err := k.PG.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create PostgresDatabase %s: %v", obj, err)
		}
		if err := k.untilReady(t.Context(), created, timeout); err != nil {
			t.Fatalf("PostgresDatabase %s Ready: %v", obj, err)
		}
		out = append(out, time.Since(start))
	}
	return out
}

// untilReady watches db from its resourceVersion on until it is Ready at
// its generation.
func (k Kit) untilReady(ctx context.Context, db *pgv1.PostgresDatabase, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sel := fields.OneTermEqualSelector("metadata.name", db.Name).String()
	client := k.PG.PostgresV1alpha1().PostgresDatabases(db.Namespace)
	w, err := watchtools.NewRetryWatcherWithContext(ctx, db.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			return client.Watch(ctx, o)
		},
	})
	if err != nil {
		return err
	}
	defer w.Stop()
	_, err = watchtools.UntilWithoutRetry(ctx, w, func(e watch.Event) (bool, error) {
		d, ok := e.Object.(*pgv1.PostgresDatabase)
		return ok && d.Status.Phase == pgv1.PhaseReady && d.Status.ObservedGeneration == d.Generation, nil
	})
	return err
}

// Spread is the median, least and most of ds.
func Spread(ds []time.Duration) (p50, least, most time.Duration) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2], s[0], s[len(s)-1]
}
