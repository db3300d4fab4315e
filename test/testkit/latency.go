package testkit

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// ReadyLatencies creates n PostgresDatabases on cluster (name-0 …
// name-<n-1>, the i-th holding database(i)) and returns for each the time
// from its create call to the watch event that shows it Ready at its
// generation — seen by a watch, not a poll, whose interval would be most
// of the figure. atOnce creates them all before waiting; otherwise one
// after another, each once the one before is Ready, so each is a new
// database on an idle cluster, not a place in a queue.
func (k Kit) ReadyLatencies(t testing.TB, ns, name, cluster string, n int, atOnce bool, timeout time.Duration, database func(i int) pgv1.DatabaseSpec) []time.Duration {
	t.Helper()
	w := k.watchReady(t, ns)
	defer w.Stop()
	created := map[string]time.Time{}
	out := make([]time.Duration, 0, n)
	for i := range n {
		obj := fmt.Sprintf("%s-%d", name, i)
		d := &pgv1.PostgresDatabase{
			ObjectMeta: metav1.ObjectMeta{Name: obj, Namespace: ns},
			Spec:       pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: cluster}, Databases: []pgv1.DatabaseSpec{database(i)}},
		}
		created[obj] = time.Now()
		if _, err := k.PG.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create PostgresDatabase %s: %v", obj, err)
		}
		if !atOnce || i == n-1 {
			out = append(out, untilReady(t, w, created, timeout)...)
		}
	}
	return out
}

// watchReady watches the PostgresDatabases of ns from now on.
func (k Kit) watchReady(t testing.TB, ns string) watch.Interface {
	t.Helper()
	client := k.PG.PostgresV1alpha1().PostgresDatabases(ns)
	list, err := client.List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := watchtools.NewRetryWatcherWithContext(t.Context(), list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return client.Watch(ctx, o)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// untilReady reads w until every PostgresDatabase in waiting is Ready at
// its generation, and returns the time from each one's creation, in the
// order they became Ready; each leaves waiting.
func untilReady(t testing.TB, w watch.Interface, waiting map[string]time.Time, timeout time.Duration) []time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	var out []time.Duration
	for len(waiting) > 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("PostgresDatabases not Ready within %s: %v", timeout, slices.Sorted(maps.Keys(waiting)))
		case e, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("the watch of PostgresDatabases ended")
			}
			d, isDB := e.Object.(*pgv1.PostgresDatabase)
			if !isDB || d.Status.Phase != pgv1.PhaseReady || d.Status.ObservedGeneration != d.Generation {
				continue
			}
			if at, wanted := waiting[d.Name]; wanted {
				out = append(out, time.Since(at))
				delete(waiting, d.Name)
			}
		}
	}
	return out
}

// Spread is the median, 99th percentile (nearest rank) and most of ds.
func Spread(ds []time.Duration) (p50, p99, most time.Duration) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := func(q float64) time.Duration {
		i := int(q*float64(len(s))+0.5) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return rank(0.5), rank(0.99), s[len(s)-1]
}
