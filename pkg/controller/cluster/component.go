package cluster

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// contractKey names an object a component publishes for later ones.
type contractKey string

const (
	contractSecret      contractKey = "Secret"
	contractCNPGCluster contractKey = "CNPGCluster"
)

// waitingReasons are the reasons of a component waiting for a contract,
// declared in the API package like every reason users can see.
var waitingReasons = map[contractKey]string{
	contractSecret:      pgv1.ReasonWaitingForSecret,
	contractCNPGCluster: pgv1.ReasonWaitingForCNPGCluster,
}

// contracts are the live objects published during one pass.
type contracts struct {
	// Secret is the superuser Secret. The Secret contract is the
	// superuser decision: this Secret while superuser access is on, or
	// NoSuperuser while it is off (then there is none, and none is needed).
	Secret      *corev1.Secret
	NoSuperuser bool
	CNPGCluster *cnpgv1.Cluster
}

func (c *contracts) has(k contractKey) bool {
	switch k {
	case contractSecret:
		return c.Secret != nil || c.NoSuperuser
	case contractCNPGCluster:
		return c.CNPGCluster != nil
	}
	return false
}

// health is where a component stands after Observe.
type health = controller.Health

var (
	ready   = controller.Ready
	waiting = controller.Waiting
)

// failed is Failed with no recheck: the component's input changes by an
// event we watch (see failedWait for one that does not).
func failed(reason, message string) health { return controller.Failed(reason, message, 0) }

// component is one step of the pipeline (ADR-0002).
type component interface {
	Name() string
	// Condition is the status condition the component owns.
	Condition() string
	Requires() []contractKey
	Provides() []contractKey
	// Reconcile actuates: makes the desired state true.
	Reconcile(ctx context.Context, p *pass) error
	// Observe converges: classifies where things stand, given Reconcile's
	// error, and publishes the contracts it provides.
	Observe(ctx context.Context, p *pass, reconcileErr error) health
}

// validateOrder fails when a component requires a contract no earlier
// component provides: a wiring bug, surfaced loudly on every pass.
func validateOrder(cs []component) error {
	provided := map[contractKey]bool{}
	for _, c := range cs {
		for _, r := range c.Requires() {
			if !provided[r] {
				return fmt.Errorf("component %s requires %s, which no earlier component provides", c.Name(), r)
			}
		}
		for _, p := range c.Provides() {
			provided[p] = true
		}
	}
	return nil
}

// outcome is the result of running the pipeline.
type outcome struct {
	// blocker is the first component that did not reach Ready, if any.
	blocker string
	health  health
	// requeueAfter is the soonest recheck any component asked for.
	requeueAfter time.Duration
	// err is the first transient error a Reconcile returned: the pass is
	// retried with backoff once status is written.
	err error
}

// runComponents walks the pipeline. It stops at the first component that
// is not Ready — intermediate or Failed alike, so nothing is built on a
// component that failed — and marks the conditions after it Blocked, the
// way the database pipeline does: a stale True would claim more than this
// pass verified.
func runComponents(ctx context.Context, cs []component, p *pass) (outcome, error) {
	if err := validateOrder(cs); err != nil {
		return outcome{}, err
	}
	var out outcome
	for i, c := range cs {
		h := checkContracts(c, p)
		if h == nil {
			err := c.Reconcile(ctx, p)
			got := c.Observe(ctx, p, err)
			h = &got
			if err != nil && out.err == nil && got.Phase != pgv1.PhaseFailed {
				out.err = fmt.Errorf("%s: %w", c.Name(), err)
			}
		}
		p.record(c.Condition(), *h)
		out.requeueAfter = controller.Soonest(out.requeueAfter, h.RequeueAfter)
		if h.Phase == pgv1.PhaseReady {
			continue
		}
		out.blocker, out.health = c.Name(), *h
		for _, later := range cs[i+1:] {
			controller.SetCondition(&p.status.Conditions, p.cluster.Generation, later.Condition(), false, pgv1.ReasonBlocked, "waiting for "+c.Condition())
		}
		return out, nil
	}
	return out, nil
}

// checkContracts returns a Pending health when a required contract is not
// published this pass, nil when the component may run.
func checkContracts(c component, p *pass) *health {
	for _, r := range c.Requires() {
		if !p.contracts.has(r) {
			h := waiting(pgv1.PhasePending, waitingReasons[r], fmt.Sprintf("waiting for %s", r), 0)
			return &h
		}
	}
	return nil
}
