package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// preparing is a stub that can start ahead of its turn.
type preparing struct {
	stub
	err error
}

func (s preparing) Prepare(_ context.Context, p *fakePass) error {
	p.ran = append(p.ran, "prepare "+s.name)
	return s.err
}

func TestBlockedStagesArePreparedBehindAWait(t *testing.T) {
	t.Parallel()
	slow := errors.New("slow")
	p := newFakePass()
	out, err := Run(t.Context(), []Stage[*fakePass]{
		stub{name: "maker", provides: []Contract{contractA}, h: Waiting(pgv1.PhaseProvisioning, "Creating", "", time.Second)},
		preparing{stub: stub{name: "early", requires: []Contract{contractA}, h: Ready("E", "")}, err: slow},
		preparing{stub: stub{name: "further", h: Ready("F", "")}},
	}, p)
	if err != nil {
		t.Fatal(err)
	}
	// The next stage is prepared, not run: its condition stays Blocked;
	// the one after it is not prepared.
	if got := strings.Join(p.ran, ","); got != "maker,prepare early" {
		t.Errorf("ran %q, want maker then only early prepared", got)
	}
	expectCondition(t, p, "earlyReady", metav1.ConditionFalse, pgv1.ReasonBlocked, "waiting for makerReady")
	if out.Blocker != "maker" || !errors.Is(out.Err, slow) {
		t.Errorf("outcome %+v, want maker blocking and the preparation's error as the pass's", out)
	}
}

func TestNotPreparedWithoutItsContract(t *testing.T) {
	t.Parallel()
	p := newFakePass()
	_, err := Run(t.Context(), []Stage[*fakePass]{
		stub{name: "other", provides: []Contract{contractB}, unpublished: true, h: Ready("O", "")},
		stub{name: "maker", provides: []Contract{contractA}, h: Waiting(pgv1.PhaseProvisioning, "Creating", "", time.Second)},
		preparing{stub: stub{name: "unfed", requires: []Contract{contractB}}},
	}, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.ran, ","); got != "other,maker" {
		t.Errorf("ran %q, want nothing prepared without its contract", got)
	}
}

func TestNothingIsPreparedBehindAFailure(t *testing.T) {
	t.Parallel()
	p := newFakePass()
	_, err := Run(t.Context(), []Stage[*fakePass]{
		stub{name: "maker", provides: []Contract{contractA}, h: Failed("Broken", "", 0)},
		preparing{stub: stub{name: "early", requires: []Contract{contractA}}},
	}, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.ran, ","); got != "maker" {
		t.Errorf("ran %q, want nothing prepared behind a failed stage", got)
	}
}
