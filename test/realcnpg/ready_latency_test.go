package realcnpg

import (
	"fmt"
	"testing"
	"time"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
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
	took := kit.ReadyLatencies(t, ns, "fresh", cluster, n, 2*time.Minute, func(i int) pgv1.DatabaseSpec {
		return pgv1.DatabaseSpec{Name: fmt.Sprintf("fresh%d", i), ReadOnlyRole: true}
	})
	p50, least, most := testkit.Spread(took)
	t.Logf("MEASURE new PostgresDatabase (3 roles) create → Ready on a Ready cluster, %d one at a time: p50 %.2f s, min %.2f s, max %.2f s; each %v",
		n, p50.Seconds(), least.Seconds(), most.Seconds(), rounded(took))
}

// rounded are ds to the hundredth of a second, for a line a reader scans.
func rounded(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(10 * time.Millisecond)
	}
	return out
}
