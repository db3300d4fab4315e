package cluster

import (
	"math"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
)

const gib = int64(1) << 30

func healthPass(st pgv1.PostgresClusterStatus, s *collector.Sample) *pass {
	pc := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop", Generation: 3}, Status: st}
	return &pass{cluster: pc, obs: &observation{sample: s}, status: pc.Status.DeepCopy()}
}

// sampleAt is a sample of a 10 GiB volume, with its level as the
// collector computes it.
func sampleAt(frac float64, mutate ...func(*collector.Sample)) *collector.Sample {
	s := collector.Sample{At: time.Now(), DatabaseBytes: int64(math.Round(frac * float64(10*gib))), AcceptsWrites: true,
		Connections: 3, MaxConnections: 100, SizeBytes: 10 * gib}
	for _, m := range mutate {
		m(&s)
	}
	s.Level = collector.LevelOf(s, collector.Thresholds{NearlyFull: 0.9})
	return &s
}

func TestHealthyClusterCarriesNoHealthConditions(t *testing.T) {
	t.Parallel()
	p := healthPass(pgv1.PostgresClusterStatus{}, sampleAt(0.3))
	recordHealth(p.status, p.cluster.Generation, p.obs.sample)
	if len(p.status.Conditions) != 0 {
		t.Errorf("healthy sample added conditions: %+v", p.status.Conditions)
	}
}

func TestHealthConditionsFollowTheSample(t *testing.T) {
	t.Parallel()
	p := healthPass(pgv1.PostgresClusterStatus{}, &collector.Sample{At: time.Now(), Err: "connection refused"})
	recordHealth(p.status, p.cluster.Generation, p.obs.sample)
	if c := meta.FindStatusCondition(p.status.Conditions, pgv1.ConditionPostgresUnreachable); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("PostgresUnreachable = %+v, want True", c)
	}
	if c := meta.FindStatusCondition(p.status.Conditions, pgv1.ConditionNotAcceptingWrites); c == nil || c.Status != metav1.ConditionUnknown {
		t.Fatalf("NotAcceptingWrites = %+v, want Unknown", c)
	}
	// Recovered, read-only, saturated and nearly full at once.
	p.obs.sample = sampleAt(0.95, func(s *collector.Sample) { s.AcceptsWrites = false; s.Connections = 95 })
	recordHealth(p.status, p.cluster.Generation, p.obs.sample)
	for typ, want := range map[string]metav1.ConditionStatus{
		pgv1.ConditionPostgresUnreachable:  metav1.ConditionFalse,
		pgv1.ConditionNotAcceptingWrites:   metav1.ConditionTrue,
		pgv1.ConditionConnectionsSaturated: metav1.ConditionTrue,
		pgv1.ConditionStorageNearlyFull:    metav1.ConditionTrue,
	} {
		if c := meta.FindStatusCondition(p.status.Conditions, typ); c == nil || c.Status != want {
			t.Errorf("%s = %+v, want %s", typ, c, want)
		}
	}
	if c := meta.FindStatusCondition(p.status.Conditions, pgv1.ConditionReady); c != nil {
		t.Errorf("health touched Ready: %+v", c)
	}
}

func TestNoSampleKeepsStatus(t *testing.T) {
	t.Parallel()
	st := pgv1.PostgresClusterStatus{Conditions: []metav1.Condition{{Type: pgv1.ConditionNotAcceptingWrites, Status: metav1.ConditionTrue}}}
	p := healthPass(st, nil)
	recordHealth(p.status, p.cluster.Generation, p.obs.sample)
	recordSample(&p.cluster.Status, p.status, nil)
	if !meta.IsStatusConditionTrue(p.status.Conditions, pgv1.ConditionNotAcceptingWrites) || p.status.Postgres != nil {
		t.Errorf("status changed without a sample: %+v", p.status)
	}
}

func TestRecordSampleOnlyOnChange(t *testing.T) {
	t.Parallel()
	first := sampleAt(0.42)
	st := pgv1.PostgresClusterStatus{Phase: pgv1.PhaseReady}
	recordSample(&st, &st, first)
	if st.Postgres == nil || st.Postgres.UsedBytes != first.UsedBytes() || *st.Postgres.UsedPercent != 42 {
		t.Fatalf("first sample not recorded: %+v", st.Postgres)
	}
	read := *st.DeepCopy()

	// A later sample in the same band: nothing to write.
	later := sampleAt(0.47)
	next := read.DeepCopy()
	recordSample(&read, next, later)
	if next.Postgres.UsedBytes != first.UsedBytes() {
		t.Errorf("a sample in the same band was recorded: %+v", next.Postgres)
	}

	// Status is written anyway (the phase changed): the latest figures go with it.
	next = read.DeepCopy()
	next.Phase = pgv1.PhaseConfiguring
	recordSample(&read, next, later)
	if next.Postgres.UsedBytes != later.UsedBytes() {
		t.Errorf("a write for another reason left old figures: %+v", next.Postgres)
	}

	// A new band, a grown volume: recorded.
	for name, s := range map[string]*collector.Sample{
		"next band": sampleAt(0.52),
		"grown":     sampleAt(0.42, func(s *collector.Sample) { s.SizeBytes = 20 * gib }),
	} {
		next = read.DeepCopy()
		recordSample(&read, next, s)
		if next.Postgres.UsedBytes != s.UsedBytes() || next.Postgres.SizeBytes != s.SizeBytes {
			t.Errorf("%s: not recorded: %+v", name, next.Postgres)
		}
	}

	// A failed sample records nothing.
	next = read.DeepCopy()
	recordSample(&read, next, &collector.Sample{Err: "timeout"})
	if next.Postgres.UsedBytes != first.UsedBytes() {
		t.Errorf("a failed sample replaced the figures: %+v", next.Postgres)
	}
}
