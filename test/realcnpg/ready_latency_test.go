package realcnpg

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// newDatabasesReadyInSeconds prints how long a new PostgresDatabase with
// three roles (admin, rw, ro) takes to be Ready on a Ready cluster: ten
// created one after another, each from its create to the watch event
// that shows it Ready (issue 46, part 3). A measurement, printed every
// run and recorded in docs/benchmarks, not a timed assertion: the one
// check is that each is Ready at all.
func newDatabasesReadyInSeconds(t *testing.T, ns, cluster string) {
	const n = 10
	load := loadAverage()
	took := newDatabases(t, ns, cluster, "fresh", n, false)
	p50, _, most := testkit.Spread(took)
	t.Logf("MEASURE new PostgresDatabase (3 roles) create → Ready on a Ready cluster, %d one at a time: p50 %.2f s, max %.2f s; each %v; load average before %s, after %s",
		n, p50.Seconds(), most.Seconds(), rounded(took), load, loadAverage())
	raced, granted := retriedRoles(t, ns, "fresh", n)
	t.Logf("MEASURE of their %d roles, %d lost the race to their Secret and were retried, %d of them the moment CNPG's instance Role named it", 3*n, raced, granted)
}

// newDatabases creates n PostgresDatabases name-i of one database
// name<i> with three roles each, at once or one at a time
// (testkit.ReadyLatencies), and returns each one's create → Ready.
func newDatabases(t *testing.T, ns, cluster, name string, n int, atOnce bool) []time.Duration {
	t.Helper()
	return kit.ReadyLatencies(t, ns, name, cluster, n, atOnce, 4*time.Minute, func(i int) pgv1.DatabaseSpec {
		return pgv1.DatabaseSpec{Name: fmt.Sprintf("%s%d", name, i), ReadOnlyRole: true}
	})
}

// retriedRoles counts the DatabaseRoles of PostgresDatabases name-0 …
// name-<n-1> that setpoint retried (cnpgverdict.RetryAnnotation), and
// of those, the ones whose last retry came with the Secret granted.
func retriedRoles(t *testing.T, ns, name string, n int) (raced, granted int) {
	t.Helper()
	for i := range n {
		sel := ownership.DatabaseLabel + "=" + fmt.Sprintf("%s-%d", name, i)
		roles, err := pg.CNPGV1().DatabaseRoles(ns).List(t.Context(), metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range roles.Items {
			if r.Annotations[cnpgverdict.RetryAnnotation] != "" {
				raced++
			}
			if r.Annotations[cnpgverdict.RetryGrantedAnnotation] == "true" {
				granted++
			}
		}
	}
	return raced, granted
}

// twentyAtOnceOnRealCNPG prints real CNPG's pace for issue 46 part 2's
// small workload: 20 new PostgresDatabases of three roles each created at
// once on a Ready cluster, create → Ready p50 and p99 — the figure the
// stand-in's timing is held to (docs/benchmarks/history.md). A
// measurement, like newDatabasesReadyInSeconds.
func twentyAtOnceOnRealCNPG(t *testing.T, ns, cluster string) {
	const n = 20
	load := loadAverage()
	took := newDatabases(t, ns, cluster, "burst", n, true)
	p50, p99, _ := testkit.Spread(took)
	t.Logf("MEASURE %d new PostgresDatabases (3 roles each) created at once on a Ready cluster, create → Ready: p50 %.2f s, p99 %.2f s; in the order Ready %v; load average before %s, after %s",
		n, p50.Seconds(), p99.Seconds(), rounded(took), load, loadAverage())
}

// loadAverage is the host's 1-, 5- and 15-minute load averages: the node
// shares its two cores with whatever else runs, and a figure taken at a
// load of 30 is not one taken idle.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// rounded are ds to the hundredth of a second, for a line a reader scans.
func rounded(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(10 * time.Millisecond)
	}
	return out
}
