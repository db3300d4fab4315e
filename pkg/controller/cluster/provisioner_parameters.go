package cluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

const (
	// parametersPendingBound is how long Postgres may take to put a
	// parameter in effect before status says which one is stuck and why.
	// CNPG reloads within seconds and restarts instances one by one, which
	// takes minutes on a large cluster.
	parametersPendingBound = 5 * time.Minute
	// parametersStuckRecheck is how often a parameter past the bound is
	// looked at again: nothing we watch announces a change of pg_settings,
	// but polling every few seconds for something that did not happen in
	// minutes only costs SQL.
	parametersStuckRecheck = 2 * time.Minute
)

// hbaNotChecked is said where the pg_hba.conf check was skipped.
const hbaNotChecked = "pg_hba.conf not checked: superuser access is off"

// parameterWait is a parameter Postgres has not put in effect.
type parameterWait struct {
	name string
	want string
	got  postgres.Setting
}

// checkParameters confirms with Postgres itself that the pg_hba.conf it
// would load is valid and that the parameters we manage are in effect:
// CNPG's healthy phase can predate a reload.
func checkParameters(ctx context.Context, p *pass, msg string) health {
	return checkParametersAt(ctx, p, msg, p.deps.clock.Now())
}

func checkParametersAt(ctx context.Context, p *pass, msg string, now time.Time) health {
	f := p.postgresFacts(ctx)
	if errors.Is(f.err, errNoLogin) {
		// CNPG's word only, for now: the monitor role comes next in the
		// pipeline, and the cluster is Ready only in a pass that could
		// check (the held-healthy shortcut skips this reason).
		return ready(pgv1.ReasonPostgresNotChecked, fmt.Sprintf("%s; Postgres not checked yet: %v", msg, f.err))
	}
	if f.err != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonPostgresUnreachable, "CNPG reports healthy but Postgres is unreachable: "+f.err.Error(), provisionRecheck)
	}
	if len(f.hbaErrors) > 0 {
		return failed(pgv1.ReasonPgHBAInvalid, describeHBAErrors(f.hbaErrors))
	}
	config := p.want.Settings.PostgreSQLConfig
	var waits []parameterWait
	for _, name := range slices.Sorted(maps.Keys(config)) {
		s, ok := f.settings[name]
		if !ok {
			return failed(pgv1.ReasonUnknownParameter, fmt.Sprintf("postgresqlConfig: Postgres has no parameter %q", name))
		}
		if s.PendingRestart || !s.InEffect(config[name]) {
			waits = append(waits, parameterWait{name: name, want: config[name], got: s})
		}
	}
	if len(waits) == 0 {
		m := fmt.Sprintf("%s; Postgres %s", msg, f.version)
		if !f.hbaChecked {
			m += "; " + hbaNotChecked
		}
		return ready(pgv1.ReasonClusterHealthy, m)
	}
	return parametersWaiting(p, waits, now)
}

// heldHealthyMessage is the ProvisionerReady message of a cluster that
// stays healthy at its generation, where no facts are read (a Ready
// cluster runs no SQL): the stored message when it is msg with the
// Postgres version the last check read. Dropping the version would
// rewrite status once per cluster for nothing.
func heldHealthyMessage(p *pass, msg string) string {
	c := apimeta.FindStatusCondition(p.status.Conditions, pgv1.ConditionProvisionerReady)
	if c != nil && strings.HasPrefix(c.Message, msg+"; Postgres ") {
		return c.Message
	}
	return msg
}

// parametersWaiting polls while the bound allows, then says which
// parameter is stuck and rechecks slowly.
func parametersWaiting(p *pass, waits []parameterWait, now time.Time) health {
	since := parameterWaitSince(p, now)
	if now.Sub(since) >= parametersPendingBound {
		// The message names the bound, not the time waited: an unchanged
		// status is not written again at every recheck.
		return waiting(pgv1.PhaseConfiguring, pgv1.ReasonParametersNotApplied,
			fmt.Sprintf("Postgres has not applied %s within %s", describeWaits(waits), parametersPendingBound), parametersStuckRecheck)
	}
	after := min(configureRecheck, since.Add(parametersPendingBound).Sub(now))
	var restart []string
	for _, w := range waits {
		if w.got.PendingRestart {
			restart = append(restart, w.name)
		}
	}
	if len(restart) > 0 {
		return waiting(pgv1.PhaseConfiguring, pgv1.ReasonRestartPending, "waiting for a restart to apply "+strings.Join(restart, ", "), after)
	}
	return waiting(pgv1.PhaseConfiguring, pgv1.ReasonParametersPending, "waiting for Postgres to apply "+describeWaits(waits), after)
}

// parameterWaitSince is when the wait for parameters began: the
// lastTransitionTime of ProvisionerReady while it carries a parameter
// reason (kept in status, so it survives restarts and leader changes).
// Otherwise the wait begins now, and the condition is reset so that it
// records this moment: its status stays False, and SetCondition would
// otherwise keep the time it turned False, which may be long before (a
// new cluster's provisioning).
func parameterWaitSince(p *pass, now time.Time) time.Time {
	c := apimeta.FindStatusCondition(p.status.Conditions, pgv1.ConditionProvisionerReady)
	if c != nil && c.Status == metav1.ConditionFalse && !c.LastTransitionTime.IsZero() {
		switch c.Reason {
		case pgv1.ReasonParametersPending, pgv1.ReasonRestartPending, pgv1.ReasonParametersNotApplied:
			return c.LastTransitionTime.Time
		}
	}
	if c == nil {
		apimeta.SetStatusCondition(&p.status.Conditions, metav1.Condition{
			Type: pgv1.ConditionProvisionerReady, Status: metav1.ConditionFalse, Reason: pgv1.ReasonParametersPending,
			ObservedGeneration: p.cluster.Generation, LastTransitionTime: metav1.NewTime(now),
		})
		return now
	}
	// In place, so the conditions keep their order.
	c.Status, c.Reason, c.LastTransitionTime = metav1.ConditionFalse, pgv1.ReasonParametersPending, metav1.NewTime(now)
	return now
}

// describeWaits names each parameter with the value wanted and the value
// in effect: `work_mem (wanted "16MB", in effect "4096kB")`.
func describeWaits(waits []parameterWait) string {
	parts := make([]string, 0, len(waits))
	for _, w := range waits {
		d := fmt.Sprintf("%s (wanted %q, in effect %q", w.name, w.want, effective(w.got))
		switch {
		case w.got.Invalid != "":
			d += ", Postgres refuses the wanted value: " + w.got.Invalid
		case w.got.PendingRestart:
			d += ", needs a restart"
		}
		parts = append(parts, d+")")
	}
	return strings.Join(parts, ", ")
}

// effective is the value in effect as postgresql.conf would spell it.
func effective(s postgres.Setting) string {
	switch {
	case s.Unit == "":
		return s.Setting
	case s.Unit[0] >= '0' && s.Unit[0] <= '9':
		return s.Setting + " × " + s.Unit // "512 × 8kB"
	}
	return s.Setting + s.Unit
}

// describeHBAErrors says which pg_hba.conf lines Postgres rejects. The
// running server keeps its previous rules, so everything works until the
// next restart, which cannot start: hence Failed, not a wait.
func describeHBAErrors(errs []postgres.HBAError) string {
	parts := make([]string, 0, len(errs))
	for _, e := range errs {
		parts = append(parts, fmt.Sprintf("line %d: %s", e.Line, e.Error))
	}
	return "pg_hba.conf (CloudNativePG's rules, then pgHBA) is invalid, Postgres would not start with it: " + strings.Join(parts, "; ")
}
