package cluster

import (
	"testing"
	"time"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A cluster that stays healthy keeps the message with the Postgres version
// its last check read: the passes after Ready read no facts, and must not
// rewrite status only to drop the version.
func TestHealthyMessageKeepsTheVersion(t *testing.T) {
	t.Parallel()
	p := parametersPass(t, nil, nil)
	h := checkParametersAt(t.Context(), p, "healthy", time.Now())
	p.Status().Record(pgv1.ConditionProvisionerReady, h)
	if got := heldHealthyMessage(p, "healthy"); got != "healthy; Postgres 15.8" {
		t.Errorf("held message %q, want the checked one with the version", got)
	}
	// CNPG says something else now: that is news, written as is.
	if got := heldHealthyMessage(p, "healthy, 2 instances"); got != "healthy, 2 instances" {
		t.Errorf("held message %q, want CNPG's new message", got)
	}
}
