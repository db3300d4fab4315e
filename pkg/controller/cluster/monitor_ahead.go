package cluster

import (
	"context"
	"errors"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// Prepare creates the monitor's Secret and DatabaseRole (and the
// certificate group's) while CNPG is still bringing a new Cluster up, so
// that CNPG's instance manager applies them as soon as the primary runs:
// the cluster's readiness then no longer waits for a pass after the
// Cluster is healthy, a create, and CNPG's turn at the role, one after the
// other. Only the first creation, and only when claiming the roles needs
// no Postgres (superuser access off: see claimMonitorRole); with the
// superuser the claim asks Postgres, which is not up yet. Whatever is in
// the way — a Secret or DatabaseRole not ours, a role listed elsewhere —
// is left for the component to report when its turn comes.
func (monitorComponent) Prepare(ctx context.Context, p *pass) error {
	if p.contracts.Secret != nil || p.obs.monitorRole != nil {
		return nil
	}
	if _, err := ensureMonitorSecret(ctx, p); err != nil {
		return judgedInTurn(err)
	}
	if _, err := applyMonitorRole(ctx, p, nil, false); err != nil {
		return judgedInTurn(err)
	}
	return judgedInTurn(ensureCertGroup(ctx, p))
}

// judgedInTurn drops the refusals and ownership conflicts a preparation
// meets: the component reports them when it runs. Any other error is the
// pass's transient one.
func judgedInTurn(err error) error {
	var r *refusal
	var c *ownership.ConflictError
	if errors.As(err, &r) || errors.As(err, &c) {
		return nil
	}
	return err
}

// triedBeforeHealthy: CNPG refused the role (a DatabaseRole prepared ahead
// can be tried by the instance manager before its Postgres accepts
// connections), the Cluster has been healthy since, and setpoint has not
// asked CNPG to try again since it became healthy. CNPG itself would try
// again only after its 30-second interval; one retry mark makes it try
// now. Paced like every retry (cnpgverdict.RetryPace), so clocks that
// disagree cost at most a retry a second while they do.
func triedBeforeHealthy(role *cnpgv1.DatabaseRole, cl *cnpgv1.Cluster, now time.Time) bool {
	if role == nil || cl == nil || !cnpgverdict.CNPGRefused(role.Status.Applied) {
		return false
	}
	healthy := apimeta.FindStatusCondition(cl.Status.Conditions, cnpgv1.ConditionClusterReady)
	if healthy == nil || healthy.Status != metav1.ConditionTrue {
		return false
	}
	last, ok := cnpgverdict.LastRetry(role)
	if !ok {
		return true
	}
	return last.Before(healthy.LastTransitionTime.Time) && now.Sub(last) >= cnpgverdict.RetryPace
}
