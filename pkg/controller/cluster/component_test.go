package cluster

import (
	"context"
	"errors"
	"slices"

	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// failing is a component whose Reconcile fails and whose Observe judges
// that failure: the adapter keeps the error unless Observe gave its own.
type failing struct {
	secretComponent
	err error
	h   health
}

func (f failing) Reconcile(context.Context, *pass) error       { return f.err }
func (f failing) Observe(context.Context, *pass, error) health { return f.h }

func testPass() *pass {
	return &pass{
		cluster: &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", Generation: 3, UID: "uid-shop"}},
		status:  &pgv1.PostgresClusterStatus{},
	}
}

func TestTheRealPipelineIsOrdered(t *testing.T) {
	t.Parallel()
	if err := pipeline.ValidateOrder(stages()); err != nil {
		t.Fatalf("the real pipeline is mis-ordered: %v", err)
	}
}

func TestAReconcileErrorIsTheStagesTransientError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	h := stage{failing{err: boom, h: waiting(pgv1.PhasePending, pgv1.ReasonSecretCreateFailed, "boom", 0)}}.Run(t.Context(), testPass())
	if !errors.Is(h.Err, boom) {
		t.Errorf("Err = %v, want Reconcile's error", h.Err)
	}
	out, err := pipeline.Run(t.Context(), []pipeline.Stage[*pass]{stage{failing{err: boom, h: failed(pgv1.ReasonSecretInvalid, "bad")}}}, testPass())
	if err != nil || out.Err != nil || out.Health.Phase != pgv1.PhaseFailed {
		t.Errorf("outcome %+v, err %v; a Failed component is not retried", out, err)
	}
}

func TestOnlyTopLevelDeclaresReady(t *testing.T) {
	t.Parallel()
	p := testPass()
	p.Status().Conclude(pipeline.Outcome{}, ready(pgv1.ReasonAllComponentsReady, "every component is ready"))
	if p.status.Phase != pgv1.PhaseReady || !conditionIs(p, pgv1.ConditionReady, metav1.ConditionTrue) {
		t.Fatalf("all components ready: status %+v", p.status)
	}
	if p.status.ObservedGeneration != 3 {
		t.Errorf("observedGeneration = %d", p.status.ObservedGeneration)
	}
	p.Status().Conclude(pipeline.Outcome{Blocker: "pooler", Health: waiting(pgv1.PhaseProvisioning, "PoolerProvisioning", "waiting", 0)}, ready(pgv1.ReasonAllComponentsReady, ""))
	if p.status.Phase != pgv1.PhaseProvisioning || !conditionIs(p, pgv1.ConditionReady, metav1.ConditionFalse) {
		t.Fatalf("blocked pipeline: status %+v", p.status)
	}
}

func conditionIs(p *pass, typ string, want metav1.ConditionStatus) bool {
	for _, c := range p.status.Conditions {
		if c.Type == typ {
			return c.Status == want
		}
	}
	return false
}

func TestPhaseMapping(t *testing.T) {
	t.Parallel()
	cases := map[string]pgv1.Phase{
		"Cluster in healthy state": pgv1.PhaseReady,
		"Setting up primary":       pgv1.PhaseProvisioning,
		"Creating a new replica":   pgv1.PhaseProvisioning,
		"Switchover in progress":   pgv1.PhaseConfiguring,
		"Applying configuration":   pgv1.PhaseConfiguring,
		"Failing over":             pgv1.PhasePending,
		"":                         pgv1.PhasePending,
		"Cluster is unrecoverable and needs manual intervention": pgv1.PhaseFailed,
		"Invalid cluster definition":                             pgv1.PhaseFailed,
		"Something CNPG 2.0 invented":                            pgv1.PhasePending,
	}
	for in, want := range cases {
		if got, _ := mapPhase(in); got != want {
			t.Errorf("mapPhase(%q) = %s, want %s", in, got, want)
		}
	}
	if _, known := mapPhase("cluster in healthy state"); known {
		t.Error("phase strings are exact: a different case must not be known")
	}
}

func TestCNPGScheduleHasSixFields(t *testing.T) {
	t.Parallel()
	if got := cnpgSchedule("0 2 * * *"); got != "0 0 2 * * *" {
		t.Errorf("cnpgSchedule = %q", got)
	}
	if got := cnpgSchedule("  30  3 * *   0 "); got != "0 30 3 * * 0" {
		t.Errorf("cnpgSchedule = %q", got)
	}
}

func expectCondition(t *testing.T, p *pass, typ string, status metav1.ConditionStatus, reason, message string) {
	t.Helper()
	for _, c := range p.status.Conditions {
		if c.Type == typ {
			if c.Status != status || c.Reason != reason || c.Message != message {
				t.Errorf("%s = %s %s %q, want %s %s %q", typ, c.Status, c.Reason, c.Message, status, reason, message)
			}
			return
		}
	}
	t.Errorf("no %s condition in %+v", typ, p.status.Conditions)
}

// The API lists the conditions in pipeline order, for the kubectl plugin
// (which points at the first that is not True) and for users: it must be
// this pipeline's order.
func TestTheAPIListsThePipelinesConditions(t *testing.T) {
	t.Parallel()
	var conds []string
	for _, c := range components() {
		conds = append(conds, c.Condition())
	}
	if !slices.Equal(pgv1.ClusterConditions, conds) {
		t.Errorf("pgv1.ClusterConditions = %v, the pipeline's conditions are %v", pgv1.ClusterConditions, conds)
	}
}
