package leaderelection

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/client-go/kubernetes/fake"
)

// The gauge is 1 while the replica leads and 0 once it has released the
// Lease. (client-go keeps one provider per process: a Lease name of its
// own keeps this test's series apart from the other tests' electors.)
func TestLeadingGaugeFollowsTheLease(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	m.Provide()
	cfg := fastConfig()
	cfg.Name = "metrics-lease"
	client := fake.NewClientset()
	e := newTestElector(t, client, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	done := runElector(ctx, e, func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		return nil
	})
	<-started
	if got := testutil.ToFloat64(m.leading.WithLabelValues("metrics-lease")); got != 1 {
		t.Errorf("setpoint_leader_election_leading = %v while leading, want 1", got)
	}
	cancel()
	if err := waitErr(t, done); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(m.leading.WithLabelValues("metrics-lease")); got != 0 {
		t.Errorf("setpoint_leader_election_leading = %v after the release, want 0", got)
	}
}
