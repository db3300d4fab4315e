package cluster

import (
	"errors"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// readyStatus is a Ready cluster's status at generation 3 as stored, with
// figures from a sample at 42 %.
func readyStatus() *pgv1.PostgresClusterStatus {
	st := &pgv1.PostgresClusterStatus{}
	statusOf(st, 3).SetPhase(pgv1.PhaseReady, pgv1.ReasonAllComponentsReady, "every component is ready")
	pipeline.SetCondition(&st.Conditions, 3, pgv1.ConditionProvisionerReady, true, pgv1.ReasonClusterHealthy, "healthy")
	recordSample(st, st, sampleAt(0.42))
	return st
}

// The status a pass writes, decided from the pass's results alone.
func TestConclude(t *testing.T) {
	t.Parallel()
	provisioning := pipeline.Outcome{Blocker: "provisioner",
		Health: pipeline.Waiting(pgv1.PhaseProvisioning, pgv1.ReasonCNPGProvisioning, "Setting up primary", 0)}
	for _, tc := range []struct {
		name    string
		read    *pgv1.PostgresClusterStatus
		out     pipeline.Outcome
		sample  *collector.Sample
		want    func(t *testing.T, st *pgv1.PostgresClusterStatus)
		noWrite bool // the result equals read: the pass writes nothing
	}{{
		name: "every stage ready: Ready at this generation",
		read: &pgv1.PostgresClusterStatus{},
		want: func(t *testing.T, st *pgv1.PostgresClusterStatus) {
			wantPhase(t, st, pgv1.PhaseReady, pgv1.ReasonAllComponentsReady, metav1.ConditionTrue)
			if st.ObservedGeneration != 3 {
				t.Errorf("observedGeneration = %d, want 3", st.ObservedGeneration)
			}
		},
	}, {
		name: "a stage holds the pipeline back: its phase, its reason, its name in the message",
		read: readyStatus(),
		out:  provisioning,
		want: func(t *testing.T, st *pgv1.PostgresClusterStatus) {
			wantPhase(t, st, pgv1.PhaseProvisioning, pgv1.ReasonCNPGProvisioning, metav1.ConditionFalse)
			if c := meta.FindStatusCondition(st.Conditions, pgv1.ConditionReady); c.Message != "provisioner: Setting up primary" {
				t.Errorf("Ready message = %q", c.Message)
			}
		},
	}, {
		name: "a transient error of a stage is the pass's to retry, not status's to hide: the phase is the stage's",
		read: readyStatus(),
		out: pipeline.Outcome{Blocker: "pooler", Err: errors.New("boom"),
			Health: pipeline.APIError(pgv1.ReasonPoolerApplyFailed, errors.New("boom"))},
		want: func(t *testing.T, st *pgv1.PostgresClusterStatus) {
			wantPhase(t, st, pgv1.PhasePending, pgv1.ReasonPoolerApplyFailed, metav1.ConditionFalse)
		},
	}, {
		name:    "steady: same outcome, a sample in the same band — nothing to write",
		read:    readyStatus(),
		sample:  sampleAt(0.45),
		noWrite: true,
	}, {
		name:   "the primary cannot be sampled: Ready stays, PostgresUnreachable says it, the last figures stay",
		read:   readyStatus(),
		sample: &collector.Sample{Err: "connection refused"},
		want: func(t *testing.T, st *pgv1.PostgresClusterStatus) {
			wantPhase(t, st, pgv1.PhaseReady, pgv1.ReasonAllComponentsReady, metav1.ConditionTrue)
			if !meta.IsStatusConditionTrue(st.Conditions, pgv1.ConditionPostgresUnreachable) {
				t.Errorf("PostgresUnreachable not True: %+v", st.Conditions)
			}
			if st.Postgres == nil || *st.Postgres.UsedPercent != 42 {
				t.Errorf("figures = %+v, want the last sample's", st.Postgres)
			}
		},
	}, {
		name:   "a status written anyway carries the latest figures",
		read:   readyStatus(),
		out:    provisioning,
		sample: sampleAt(0.45),
		want: func(t *testing.T, st *pgv1.PostgresClusterStatus) {
			if st.Postgres == nil || *st.Postgres.UsedPercent != 45 {
				t.Errorf("figures = %+v, want the new sample's", st.Postgres)
			}
		},
	}, {
		name: "the managedRoles condition an earlier setpoint wrote goes",
		read: func() *pgv1.PostgresClusterStatus {
			st := readyStatus()
			pipeline.SetCondition(&st.Conditions, 3, pgv1.ConditionManagedRolesReady, true, "RolesApplied", "")
			return st
		}(),
		want: func(t *testing.T, st *pgv1.PostgresClusterStatus) {
			if c := meta.FindStatusCondition(st.Conditions, pgv1.ConditionManagedRolesReady); c != nil {
				t.Errorf("ManagedRolesReady kept: %+v", c)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			built := tc.read.DeepCopy() // the components' conditions, as stored
			before := built.DeepCopy()
			st := conclude(tc.read, built, 3, tc.out, tc.sample)
			if !apiequality.Semantic.DeepEqual(built, before) {
				t.Errorf("conclude changed the status it was given")
			}
			if got := apiequality.Semantic.DeepEqual(st, tc.read); got != tc.noWrite {
				t.Errorf("result equals the stored status: %v, want %v\n%+v", got, tc.noWrite, st)
			}
			if tc.want != nil {
				tc.want(t, st)
			}
		})
	}
}

func wantPhase(t *testing.T, st *pgv1.PostgresClusterStatus, phase pgv1.Phase, reason string, ready metav1.ConditionStatus) {
	t.Helper()
	c := meta.FindStatusCondition(st.Conditions, pgv1.ConditionReady)
	if st.Phase != phase || c == nil || c.Reason != reason || c.Status != ready {
		t.Errorf("phase %s, Ready %+v; want %s, %s %s", st.Phase, c, phase, ready, reason)
	}
}
