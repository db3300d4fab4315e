package cluster

import (
	"context"

	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// stub is a scripted component for runner tests.
type stub struct {
	name     string
	requires []contractKey
	provides []contractKey
	h        health
	ran      *[]string
}

func (s stub) Name() string            { return s.name }
func (s stub) Condition() string       { return s.name + "Ready" }
func (s stub) Requires() []contractKey { return s.requires }
func (s stub) Provides() []contractKey { return s.provides }
func (s stub) Reconcile(context.Context, *pass) error {
	*s.ran = append(*s.ran, s.name)
	return nil
}
func (s stub) Observe(_ context.Context, p *pass, _ error) health {
	for _, k := range s.provides {
		switch k {
		case contractSecret:
			p.contracts.Secret = &corev1.Secret{}
		case contractCNPGCluster:
			p.contracts.CNPGCluster = &cnpgv1.Cluster{}
		}
	}
	return s.h
}

func testPass() *pass {
	return &pass{
		cluster: &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", Generation: 3, UID: "uid-shop"}},
		status:  &pgv1.PostgresClusterStatus{},
	}
}

func TestValidateOrderRejectsWiringBugs(t *testing.T) {
	t.Parallel()
	var ran []string
	bad := []component{
		stub{name: "provisioner", requires: []contractKey{contractSecret}, ran: &ran},
		stub{name: "secret", provides: []contractKey{contractSecret}, ran: &ran},
	}
	_, err := runComponents(t.Context(), bad, testPass())
	if err == nil || !strings.Contains(err.Error(), "component provisioner requires Secret, which no earlier component provides") {
		t.Fatalf("err = %v", err)
	}
	if len(ran) != 0 {
		t.Fatalf("components ran despite the wiring error: %v", ran)
	}
	if err := validateOrder(pipeline()); err != nil {
		t.Fatalf("the real pipeline is mis-ordered: %v", err)
	}
}

func TestRunnerStopsAtFirstIntermediateHealth(t *testing.T) {
	t.Parallel()
	var ran []string
	cs := []component{
		stub{name: "a", provides: []contractKey{contractSecret}, h: ready("A", ""), ran: &ran},
		stub{name: "b", h: waiting(pgv1.PhaseProvisioning, "Creating", "b is creating", provisionRecheck), ran: &ran},
		stub{name: "c", h: ready("C", ""), ran: &ran},
	}
	p := testPass()
	out, err := runComponents(t.Context(), cs, p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ran, ",") != "a,b" {
		t.Errorf("ran %v, want a,b", ran)
	}
	if out.blocker != "b" || out.health.RequeueAfter != provisionRecheck {
		t.Errorf("outcome %+v, want blocker b with its requeue hint", out)
	}
	if !conditionIs(p, "aReady", metav1.ConditionTrue) || !conditionIs(p, "bReady", metav1.ConditionFalse) {
		t.Errorf("conditions %+v", p.status.Conditions)
	}
}

func TestRunnerSkipsDependantsOfMissingContracts(t *testing.T) {
	t.Parallel()
	var ran []string
	cs := []component{
		stub{name: "secret", provides: []contractKey{contractSecret}, h: failed("SecretInvalid", "bad"), ran: &ran},
		stub{name: "user", requires: []contractKey{contractCNPGCluster}, h: ready("U", ""), ran: &ran},
	}
	// "user" requires a contract nobody provides: a wiring error, and
	// nothing runs.
	if _, err := runComponents(t.Context(), cs, testPass()); err == nil || len(ran) != 0 {
		t.Fatalf("err %v, ran %v; want a wiring error before anything runs", err, ran)
	}

	// A Failed provider stops the pass: its dependants are neither
	// reconciled nor observed, and their conditions say why.
	ran = nil
	cs = []component{
		stub{name: "provisioner", provides: []contractKey{contractCNPGCluster}, h: failed("CNPGFailed", "boom"), ran: &ran},
		stub{name: "pooler", requires: []contractKey{contractCNPGCluster}, h: ready("P", ""), ran: &ran},
		stub{name: "configMap", h: ready("C", ""), ran: &ran},
	}
	p := testPass()
	out, err := runComponents(t.Context(), cs, p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ran, ",") != "provisioner" || out.blocker != "provisioner" {
		t.Errorf("ran %v, blocker %q; want only the provisioner, blocking", ran, out.blocker)
	}
	expectCondition(t, p, "provisionerReady", metav1.ConditionFalse, "CNPGFailed", "boom")
	expectCondition(t, p, "poolerReady", metav1.ConditionFalse, "Blocked", "waiting for provisionerReady")
	expectCondition(t, p, "configMapReady", metav1.ConditionFalse, "Blocked", "waiting for provisionerReady")

	// A Ready provider that did not publish its contract this pass: the
	// dependant is not run, waits for the contract, and blocks the rest.
	ran = nil
	cs = []component{
		unpublished{stub{name: "provisioner", provides: []contractKey{contractCNPGCluster}, h: ready("R", ""), ran: &ran}},
		stub{name: "pooler", requires: []contractKey{contractCNPGCluster}, h: ready("P", ""), ran: &ran},
		stub{name: "configMap", h: ready("C", ""), ran: &ran},
	}
	p = testPass()
	if out, err = runComponents(t.Context(), cs, p); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ran, ",") != "provisioner" || out.blocker != "pooler" {
		t.Errorf("ran %v, blocker %q; want the pooler skipped and blocking", ran, out.blocker)
	}
	expectCondition(t, p, "poolerReady", metav1.ConditionFalse, "WaitingForCNPGCluster", "waiting for CNPGCluster")
	expectCondition(t, p, "configMapReady", metav1.ConditionFalse, "Blocked", "waiting for poolerReady")
}

// unpublished is a stub that reports its health without publishing the
// contracts it declares.
type unpublished struct{ stub }

func (u unpublished) Observe(context.Context, *pass, error) health { return u.h }

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

func TestOnlyTopLevelDeclaresReady(t *testing.T) {
	t.Parallel()
	p := testPass()
	p.conclude(outcome{})
	if p.status.Phase != pgv1.PhaseReady || !conditionIs(p, pgv1.ConditionReady, metav1.ConditionTrue) {
		t.Fatalf("all components ready: status %+v", p.status)
	}
	if p.status.ObservedGeneration != 3 {
		t.Errorf("observedGeneration = %d", p.status.ObservedGeneration)
	}
	p.conclude(outcome{blocker: "pooler", health: waiting(pgv1.PhaseProvisioning, "PoolerProvisioning", "waiting", 0)})
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
