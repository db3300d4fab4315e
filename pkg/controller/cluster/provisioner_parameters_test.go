package cluster

import (
	"strings"
	"testing"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// parametersPass is a pass whose Postgres facts are already read.
func parametersPass(t *testing.T, config map[string]string, settings map[string]postgres.Setting) *pass {
	t.Helper()
	p := testPass()
	p.want = &desired{Settings: pgv1.ClusterSettings{PostgreSQLConfig: config}}
	p.facts = onceFacts{read: true, facts: &facts{version: "15.8", settings: settings, hbaChecked: true}}
	return p
}

func TestParametersNormalisedByPostgresAreInEffect(t *testing.T) {
	t.Parallel()
	p := parametersPass(t, map[string]string{"timezone": "utc", "DateStyle": "ISO", "work_mem": "16MB", "shared_buffers": "256MB"},
		map[string]postgres.Setting{
			// Postgres's own spellings and normalised values, as ReadSettings reports them.
			"timezone":       {Name: "TimeZone", Setting: "UTC", Context: "user", Normalized: ptr.To("UTC")},
			"DateStyle":      {Name: "DateStyle", Setting: "ISO, MDY", Context: "user", Normalized: ptr.To("ISO, MDY")},
			"work_mem":       {Name: "work_mem", Setting: "16384", Unit: "kB", Context: "user", Normalized: ptr.To("16384")},
			"shared_buffers": {Name: "shared_buffers", Setting: "32768", Unit: "8kB", Context: "postmaster"},
		})
	h := checkParametersAt(t.Context(), p, "healthy", time.Now())
	if h.Phase != pgv1.PhaseReady {
		t.Fatalf("health = %+v, want Ready", h)
	}
}

func TestParameterPendingIsBounded(t *testing.T) {
	t.Parallel()
	settings := map[string]postgres.Setting{
		"wal_buffers": {Name: "wal_buffers", Setting: "512", Unit: "8kB", Context: "postmaster"},
	}
	config := map[string]string{"wal_buffers": "-1"}
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

	// First observation: pending, polled, and the clock starts in the
	// condition although ProvisionerReady has been False for an hour.
	p := parametersPass(t, config, settings)
	p.status.Conditions = []metav1.Condition{{Type: pgv1.ConditionProvisionerReady, Status: metav1.ConditionFalse,
		Reason: "CNPGProvisioning", LastTransitionTime: metav1.NewTime(start.Add(-time.Hour))}}
	h := checkParametersAt(t.Context(), p, "healthy", start)
	if h.Reason != pgv1.ReasonParametersPending || h.RequeueAfter != configureRecheck {
		t.Fatalf("first health = %+v, want ParametersPending polled every %s", h, configureRecheck)
	}
	p.Status().Record(pgv1.ConditionProvisionerReady, h)
	c := apimeta.FindStatusCondition(p.status.Conditions, pgv1.ConditionProvisionerReady)
	if !c.LastTransitionTime.Time.Equal(start) {
		t.Fatalf("lastTransitionTime = %s, want the first pending observation %s", c.LastTransitionTime, start)
	}

	// Within the bound: still pending, and the next look is no later
	// than the bound.
	next := parametersPass(t, config, settings)
	next.status = p.status.DeepCopy()
	h = checkParametersAt(t.Context(), next, "healthy", start.Add(parametersPendingBound-time.Second))
	if h.Reason != pgv1.ReasonParametersPending || h.RequeueAfter != time.Second {
		t.Fatalf("health near the bound = %+v, want ParametersPending rechecked after 1s", h)
	}

	// Past the bound: the reason says which parameter, what was wanted and
	// what is in effect, and the recheck is slow.
	next = parametersPass(t, config, settings)
	next.status = p.status.DeepCopy()
	h = checkParametersAt(t.Context(), next, "healthy", start.Add(parametersPendingBound))
	if h.Phase != pgv1.PhaseConfiguring || h.Reason != pgv1.ReasonParametersNotApplied || h.RequeueAfter != parametersStuckRecheck {
		t.Fatalf("health past the bound = %+v", h)
	}
	for _, s := range []string{"wal_buffers", `wanted "-1"`, `in effect "512 × 8kB"`, "within 5m0s"} {
		if !strings.Contains(h.Message, s) {
			t.Errorf("message %q lacks %q", h.Message, s)
		}
	}
	next.Status().Record(pgv1.ConditionProvisionerReady, h)
	if c := apimeta.FindStatusCondition(next.status.Conditions, pgv1.ConditionProvisionerReady); !c.LastTransitionTime.Time.Equal(start) {
		t.Fatalf("lastTransitionTime moved to %s", c.LastTransitionTime)
	}
	// A later recheck yields the same status: nothing to write.
	later := parametersPass(t, config, settings)
	later.status = next.status.DeepCopy()
	if h2 := checkParametersAt(t.Context(), later, "healthy", start.Add(3*parametersPendingBound)); h2 != h {
		t.Fatalf("recheck health %+v differs from %+v", h2, h)
	}
}

func TestParameterRefusedByPostgresSaysWhy(t *testing.T) {
	t.Parallel()
	p := parametersPass(t, map[string]string{"work_mem": "lots"}, map[string]postgres.Setting{
		"work_mem": {Name: "work_mem", Setting: "4096", Unit: "kB", Context: "user", Invalid: `invalid value for parameter "work_mem": "lots"`},
	})
	h := checkParametersAt(t.Context(), p, "healthy", time.Now())
	if h.Reason != pgv1.ReasonParametersPending || !strings.Contains(h.Message, `Postgres refuses the wanted value: invalid value for parameter "work_mem"`) {
		t.Fatalf("health = %+v", h)
	}
}

func TestUnknownParameterFails(t *testing.T) {
	t.Parallel()
	p := parametersPass(t, map[string]string{"no_such_thing": "1"}, map[string]postgres.Setting{})
	if h := checkParametersAt(t.Context(), p, "healthy", time.Now()); h.Phase != pgv1.PhaseFailed || h.Reason != "UnknownParameter" {
		t.Fatalf("health = %+v", h)
	}
}

func TestInvalidPgHBAFailsNamingTheLine(t *testing.T) {
	t.Parallel()
	p := parametersPass(t, nil, nil)
	p.facts.facts.hbaErrors = []postgres.HBAError{{Line: 4, Error: `invalid authentication method "scram-sha-257"`}}
	h := checkParametersAt(t.Context(), p, "healthy", time.Now())
	if h.Phase != pgv1.PhaseFailed || h.Reason != "PgHBAInvalid" || !strings.Contains(h.Message, `line 4: invalid authentication method "scram-sha-257"`) {
		t.Fatalf("health = %+v", h)
	}
}

// Without superuser access pg_hba.conf is not checked, and the message
// says so; with nobody to log in as yet (the monitor role comes later in
// the pipeline) CNPG's word is taken for now, under a reason the
// held-healthy shortcut does not hold on.
func TestParametersCheckedAsTheMonitor(t *testing.T) {
	t.Parallel()
	p := parametersPass(t, map[string]string{"work_mem": "16MB"},
		map[string]postgres.Setting{"work_mem": {Name: "work_mem", Setting: "16384", Unit: "kB", Context: "user", Normalized: ptr.To("16384")}})
	p.facts.facts.hbaChecked = false
	h := checkParametersAt(t.Context(), p, "healthy", time.Now())
	if h.Phase != pgv1.PhaseReady || h.Message != "healthy; Postgres 15.8; pg_hba.conf not checked: superuser access is off" {
		t.Fatalf("health = %+v", h)
	}
	p.Status().Record(pgv1.ConditionProvisionerReady, h)
	if got := heldHealthyMessage(p, "healthy"); got != h.Message {
		t.Errorf("held message %q, want %q", got, h.Message)
	}

	p = parametersPass(t, nil, nil)
	p.facts.facts = &facts{err: errNoLogin}
	h = checkParametersAt(t.Context(), p, "healthy", time.Now())
	if h.Phase != pgv1.PhaseReady || h.Reason != pgv1.ReasonPostgresNotChecked ||
		h.Message != "healthy; Postgres not checked yet: superuser access is off and role setpoint_monitor is not applied yet" {
		t.Fatalf("health without a login = %+v", h)
	}
	p.Status().Record(pgv1.ConditionProvisionerReady, h)
	if !checkSkipped(p) {
		t.Error("a skipped check is held healthy")
	}
}
