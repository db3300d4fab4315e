package cluster

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
)

// recordHealth sets the conditions a person must act on from the
// collector's last sample, read into the snapshot (the pass never asks
// Postgres for them). They come from the sample's Level, so they agree
// with the edges that woke the pass. Without a sample (the operator just
// started, or the cluster was never Ready) status keeps what it says.
// These conditions never touch the phase: a Ready cluster whose disk
// fills stays Ready, and says so beside it.
func recordHealth(st *pgv1.PostgresClusterStatus, generation int64, s *collector.Sample) {
	if s == nil {
		return
	}
	l := s.Level
	if !l.Reachable {
		setHealth(st, generation, pgv1.ConditionPostgresUnreachable, metav1.ConditionTrue, pgv1.ReasonSampleFailed,
			"the primary could not be sampled: "+s.Err)
		setHealth(st, generation, pgv1.ConditionNotAcceptingWrites, metav1.ConditionUnknown, pgv1.ReasonPrimaryUnreachable,
			"unknown while the primary cannot be reached")
		return // saturation and usage: the last known stand
	}
	setHealth(st, generation, pgv1.ConditionPostgresUnreachable, metav1.ConditionFalse, pgv1.ReasonSampled, "the primary answers")
	switch {
	case l.AcceptsWrites:
		setHealth(st, generation, pgv1.ConditionNotAcceptingWrites, metav1.ConditionFalse, pgv1.ReasonAcceptingWrites, "the primary accepts writes")
	case s.InRecovery:
		setHealth(st, generation, pgv1.ConditionNotAcceptingWrites, metav1.ConditionTrue, pgv1.ReasonInRecovery, "the primary is in recovery")
	default:
		setHealth(st, generation, pgv1.ConditionNotAcceptingWrites, metav1.ConditionTrue, pgv1.ReasonReadOnly,
			"the primary is read-only (default_transaction_read_only)")
	}
	if l.Saturated {
		setHealth(st, generation, pgv1.ConditionConnectionsSaturated, metav1.ConditionTrue, pgv1.ReasonConnectionsSaturated,
			fmt.Sprintf("%d of max_connections %d in use", s.Connections, s.MaxConnections))
	} else {
		setHealth(st, generation, pgv1.ConditionConnectionsSaturated, metav1.ConditionFalse, pgv1.ReasonConnectionsAvailable, "connections are available")
	}
	if l.CommitsWait {
		setHealth(st, generation, pgv1.ConditionSynchronousStandbysMissing, metav1.ConditionTrue, pgv1.ReasonCommitsWait,
			fmt.Sprintf("commits wait for %d synchronous standby(s) and %d stream%s: writes block until a standby returns (or set durability.dataDurability Preferred)",
				s.SynchronousRequired, len(s.SynchronousStandbys), streamingNames(s.SynchronousStandbys)))
	} else {
		setHealth(st, generation, pgv1.ConditionSynchronousStandbysMissing, metav1.ConditionFalse, pgv1.ReasonSynchronousStandbysStreaming,
			"commits do not wait for missing standbys")
	}
	if pct, ok := s.UsedPercent(); ok && l.NearlyFull {
		setHealth(st, generation, pgv1.ConditionStorageNearlyFull, metav1.ConditionTrue, pgv1.ReasonStorageNearlyFull,
			fmt.Sprintf("the data takes %d%% of the volume (%d of %d bytes)", pct, s.UsedBytes(), s.SizeBytes))
	} else if ok {
		setHealth(st, generation, pgv1.ConditionStorageNearlyFull, metav1.ConditionFalse, pgv1.ReasonStorageAvailable, "the volume has room")
	}
}

// setHealth sets a health condition. One that was never True is not added
// as False: a healthy cluster's status carries none of them, so they
// cost no write until the first time they matter.
func setHealth(st *pgv1.PostgresClusterStatus, generation int64, typ string, status metav1.ConditionStatus, reason, message string) {
	if status == metav1.ConditionFalse && meta.FindStatusCondition(st.Conditions, typ) == nil {
		return
	}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: message, ObservedGeneration: generation,
	})
}

// recordSample decides the figures status.postgres shows. A new sample
// is recorded when status has none, when its figures left their usage
// band (a tenth of the volume, see collector.BandHolds) or the volume
// changed size, or when status is written anyway; otherwise the recorded
// sample stays, so a steady cluster costs no write per sample. A failed
// sample records nothing: PostgresUnreachable says it, and the last
// figures stay.
func recordSample(read *pgv1.PostgresClusterStatus, st *pgv1.PostgresClusterStatus, s *collector.Sample) {
	if s == nil || s.Failed() {
		return
	}
	old := st.Postgres
	if old != nil && old.SizeBytes == s.SizeBytes && collector.BandHolds(s.Level.Band, old.UsedBytes, old.SizeBytes) &&
		int(old.SynchronousRequired) == s.SynchronousRequired && slices.Equal(old.SynchronousStandbys, s.SynchronousStandbys) &&
		apiequality.Semantic.DeepEqual(read, st) {
		return
	}
	st.Postgres = healthOf(s)
}

func healthOf(s *collector.Sample) *pgv1.PostgresHealth {
	h := &pgv1.PostgresHealth{
		// Seconds, as the API stores it: the pass compares what it would
		// write with what it read.
		SampledAt:     metav1.NewTime(s.At).Rfc3339Copy(),
		UsedBytes:     s.UsedBytes(),
		SizeBytes:     s.SizeBytes,
		DatabaseBytes: s.DatabaseBytes, WALBytes: s.WALBytes,
		AcceptsWrites:  s.AcceptsWrites,
		Connections:    int32(s.Connections),
		MaxConnections: int32(s.MaxConnections),
	}
	if pct, ok := s.UsedPercent(); ok {
		h.UsedPercent = &pct
	}
	if s.ReplicationLagBytes != nil {
		lag := *s.ReplicationLagBytes
		h.ReplicationLagBytes = &lag
	}
	h.SynchronousRequired = int32(s.SynchronousRequired)
	h.SynchronousStandbys = slices.Clone(s.SynchronousStandbys)
	if s.LastReplayed != nil {
		t := metav1.NewTime(*s.LastReplayed).Rfc3339Copy()
		h.LastReplayedAt = &t
	}
	return h
}

// streamingNames is ": a, b" for the standbys that confirm commits now,
// "" for none.
func streamingNames(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return ": " + strings.Join(names, ", ")
}

// healthConditions are the conditions recordHealth sets, with the Event
// reason of their clearing.
var healthConditions = map[string]string{
	pgv1.ConditionPostgresUnreachable:        pgv1.EventPostgresReachable,
	pgv1.ConditionNotAcceptingWrites:         pgv1.EventAcceptingWrites,
	pgv1.ConditionConnectionsSaturated:       pgv1.EventConnectionsAvailable,
	pgv1.ConditionStorageNearlyFull:          pgv1.EventStorageAvailable,
	pgv1.ConditionSynchronousStandbysMissing: pgv1.EventSynchronousStandbysStreaming,
}

// healthEvents announces, after a status write, each health condition
// that turned True (a Warning) or stopped being True (Normal): Events on
// the edges only, never while a condition holds.
func (c *Controller) healthEvents(pc *pgv1.PostgresCluster, st *pgv1.PostgresClusterStatus) {
	for typ, cleared := range healthConditions {
		was := meta.IsStatusConditionTrue(pc.Status.Conditions, typ)
		now := meta.FindStatusCondition(st.Conditions, typ)
		switch {
		case now == nil:
		case !was && now.Status == metav1.ConditionTrue:
			c.deps.recorder.Event(pc, corev1.EventTypeWarning, typ, now.Message)
		case was && now.Status == metav1.ConditionFalse:
			c.deps.recorder.Event(pc, corev1.EventTypeNormal, cleared, now.Message)
		}
	}
}
