package inspect

import (
	"strings"
	"testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// isReadyReason tells a Ready reason from the others, by the rule the
// reference's tables follow: a Ready reason is the reason of a condition
// in its good state (True for a stage, Ready, BackupHealthy and
// PasswordRotation; False for a condition from Postgres itself, such as
// StorageNearlyFull), and its comment's "What to do" opens with
// "nothing" (AllComponentsReady: "nothing"; NotConfigured: "nothing, or
// enable it"; UnderThreshold: "nothing yet; raise the limit ..."). Every
// other reason is one the plugin may explain a condition by, so it needs
// advice of its own: what to do, or "wait" for a wait that ends by
// itself.
func isReadyReason(r reasonAdvice) bool {
	first, _, _ := strings.Cut(r.advice, " ")
	return strings.TrimRight(first, ",;:.") == "nothing"
}

// reasons comes from the constants (hack/reasonsdoc's
// TestAdviceTableIsCurrent keeps it so, and verify-docs fails on a stale
// table): every declared reason is a key, and every key is a declared
// reason.

// TestEveryNonReadyReasonHasAdvice: every reason that is not a Ready
// reason has advice of its own, found on its condition and on Ready
// (which carries the reason of what holds the object back), and that
// advice is more than "nothing".
func TestEveryNonReadyReasonHasAdvice(t *testing.T) {
	ready, other := 0, 0
	for _, r := range reasons {
		if r.advice == "" {
			t.Errorf("%s (%s) has no advice: say what to do in the comment's \"What to do:\"", r.name, r.reason)
			continue
		}
		if isReadyReason(r) {
			ready++
			continue
		}
		other++
		if got := AdviceFor(r.condition, r.reason); got != r.advice {
			t.Errorf("%s on %q: advice %q, want its own %q", r.name, r.condition, got, r.advice)
		}
		if got := AdviceFor(pgv1.ConditionReady, r.reason); got == genericAdvice || isReadyReason(reasonAdvice{advice: got}) {
			t.Errorf("%s on Ready: advice %q, want what to do", r.name, got)
		}
	}
	// Anchors of the rule, so that a change to it is seen.
	for _, want := range []struct {
		reason string
		ready  bool
	}{
		{pgv1.ReasonAllComponentsReady, true}, {pgv1.ReasonAllReady, true}, {pgv1.ReasonNotConfigured, true},
		{pgv1.ReasonBackupsHealthy, true}, {pgv1.ReasonStorageAvailable, true}, {pgv1.ReasonRotated, true},
		{pgv1.ReasonClassNotFound, false}, {pgv1.ReasonClusterDeleting, false}, {pgv1.ReasonMetricsServiceConflict, false},
		{pgv1.ReasonArchivingFailing, false}, {pgv1.ReasonRotationPending, false}, {pgv1.ReasonStorageNearlyFull, false},
	} {
		for _, r := range reasons {
			if r.reason == want.reason && isReadyReason(r) != want.ready {
				t.Errorf("%s: Ready reason %t, want %t", r.name, isReadyReason(r), want.ready)
			}
		}
	}
	t.Logf("%d reasons: %d Ready, %d with advice", len(reasons), ready, other)
	if ready < 20 || other < 100 {
		t.Errorf("%d Ready reasons and %d others: the table or the rule lost reasons", ready, other)
	}
}

// TestReasonsSharingAValueAreToldApartByCondition: where two constants
// share a value, each gets its own advice on its own condition, and the
// first, never a Ready one, wins elsewhere and without a condition.
func TestReasonsSharingAValueAreToldApartByCondition(t *testing.T) {
	byValue := map[string][]reasonAdvice{}
	for _, r := range reasons {
		byValue[r.reason] = append(byValue[r.reason], r)
	}
	shared := 0
	for value, rs := range byValue {
		if len(rs) < 2 {
			continue
		}
		shared++
		seen := map[string]bool{}
		for _, r := range rs {
			if seen[r.condition] {
				t.Errorf("%s: two constants of %q share a value: they cannot be told apart", value, r.condition)
			}
			seen[r.condition] = true
		}
		if got := Advice(value); got != rs[0].advice {
			t.Errorf("%s without a condition: advice %q, want the first's, %s's", value, got, rs[0].name)
		}
		if isReadyReason(rs[0]) {
			t.Errorf("%s: the first constant of that value, %s, is a Ready reason: a condition of another type would get \"nothing\"", value, rs[0].name)
		}
	}
	if shared == 0 {
		t.Log("no two constants share a value")
	}
	if got := AdviceFor(pgv1.ConditionReady, pgv1.ReasonSuperuserSecretWithoutAccess); !strings.Contains(got, "superuserAccess") {
		t.Errorf("SuperuserAccessOff on Ready: advice %q, want the invalid spec's", got)
	}
	if got := AdviceFor(pgv1.ConditionSecretReady, pgv1.ReasonSuperuserAccessOff); got != "nothing" {
		t.Errorf("SuperuserAccessOff on SecretReady: advice %q, want nothing", got)
	}
}

// A reason setpoint does not declare gets the general hint.
func TestUndeclaredReasonGetsTheGeneralHint(t *testing.T) {
	if got := AdviceFor(pgv1.ConditionReady, "Provisioning"); got != genericAdvice {
		t.Errorf("advice %q, want the general hint", got)
	}
}
