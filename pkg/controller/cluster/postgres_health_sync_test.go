package cluster

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
)

// A primary that asks one synchronous standby while none streams: commits
// wait, the condition says so with what Postgres asks; the standby back,
// it clears, and status names the standby that confirms commits.
func TestSynchronousStandbysMissingFollowsTheSample(t *testing.T) {
	t.Parallel()
	waiting := sampleAt(0.3, func(s *collector.Sample) { s.SynchronousRequired = 1 })
	p := healthPass(pgv1.PostgresClusterStatus{Phase: pgv1.PhaseReady}, waiting)
	recordHealth(p.status, p.cluster.Generation, p.obs.sample)
	recordSample(&p.cluster.Status, p.status, p.obs.sample)
	c := meta.FindStatusCondition(p.status.Conditions, pgv1.ConditionSynchronousStandbysMissing)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != pgv1.ReasonCommitsWait ||
		!strings.Contains(c.Message, "commits wait for 1 synchronous standby(s) and 0 stream") {
		t.Fatalf("SynchronousStandbysMissing = %+v, want True (CommitsWait)", c)
	}
	if meta.FindStatusCondition(p.status.Conditions, pgv1.ConditionReady) != nil || p.status.Phase != pgv1.PhaseReady {
		t.Errorf("waiting commits touched readiness: %+v", p.status)
	}
	if h := p.status.Postgres; h == nil || h.SynchronousRequired != 1 || len(h.SynchronousStandbys) != 0 {
		t.Errorf("status.postgres %+v, want 1 required and none streaming", h)
	}

	read := *p.status.DeepCopy()
	back := sampleAt(0.3, func(s *collector.Sample) { s.SynchronousRequired = 1; s.SynchronousStandbys = []string{"shop-2"} })
	next := read.DeepCopy()
	recordHealth(next, p.cluster.Generation, back)
	recordSample(&read, next, back)
	if c := meta.FindStatusCondition(next.Conditions, pgv1.ConditionSynchronousStandbysMissing); c == nil ||
		c.Status != metav1.ConditionFalse || c.Reason != pgv1.ReasonSynchronousStandbysStreaming {
		t.Errorf("SynchronousStandbysMissing = %+v, want False once shop-2 streams", c)
	}
	if h := next.Postgres; h == nil || !slices.Equal(h.SynchronousStandbys, []string{"shop-2"}) {
		t.Errorf("status.postgres %+v, want shop-2 synchronous", h)
	}

	// The same standbys in a later sample of the same band: no write.
	steady := *next.DeepCopy()
	again := steady.DeepCopy()
	recordSample(&steady, again, sampleAt(0.31, func(s *collector.Sample) { s.SynchronousRequired = 1; s.SynchronousStandbys = []string{"shop-2"} }))
	if again.Postgres.SampledAt != steady.Postgres.SampledAt || again.Postgres.UsedBytes != steady.Postgres.UsedBytes {
		t.Errorf("the same synchronous standbys were recorded again: %+v", again.Postgres)
	}
}

// An asynchronous cluster never carries the condition.
func TestAsynchronousClusterHasNoSynchronousCondition(t *testing.T) {
	t.Parallel()
	p := healthPass(pgv1.PostgresClusterStatus{}, sampleAt(0.3))
	recordHealth(p.status, p.cluster.Generation, p.obs.sample)
	if c := meta.FindStatusCondition(p.status.Conditions, pgv1.ConditionSynchronousStandbysMissing); c != nil {
		t.Errorf("asynchronous cluster has %+v", c)
	}
}
