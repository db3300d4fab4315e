package cluster

import (
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// conclude computes the status a pass writes from what it knows at the
// end: the status its components built (their conditions and references),
// the pipeline's outcome, and the collector's last sample. It decides the
// phase and Ready (only here is a cluster declared Ready), the health
// conditions a person acts on, and the figures of status.postgres, which
// are kept when the new sample says nothing new. read is the status as
// stored, built is left as it is.
//
// conclude is pure — no API call, no clock — so the whole decision is
// table-tested (conclude_test.go), as ReplicaSet's calculateStatus is; the
// pass then writes the result once, or not at all when it equals read.
func conclude(read, built *pgv1.PostgresClusterStatus, generation int64, out pipeline.Outcome, sample *collector.Sample) *pgv1.PostgresClusterStatus {
	st := built.DeepCopy()
	statusOf(st, generation).Conclude(out, ready(pgv1.ReasonAllComponentsReady, "every component is ready"))
	dropRolesCondition(st)
	recordHealth(st, generation, sample)
	recordSample(read, st, sample)
	return st
}

// statusOf is the part of st the runner writes, for an object at
// generation.
func statusOf(st *pgv1.PostgresClusterStatus, generation int64) pipeline.Status {
	return pipeline.Status{Phase: &st.Phase, ObservedGeneration: &st.ObservedGeneration,
		Conditions: &st.Conditions, Generation: generation}
}
