package inspect

import (
	"bytes"
	"strings"
	"testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A Ready cluster whose upgrade's preflight failed: explain says Ready,
// then the upgrade, its obstacle and what to do; a succeeded upgrade adds
// nothing.
func TestExplainNamesAnUpgradeThatWaits(t *testing.T) {
	const msg = "the upgrade from 15 to 17 cannot start, and nothing was changed: extension adminpack (database orders) is not in the PostgreSQL 17 image x"
	pc := cluster(pgv1.PhaseReady, cond("Ready", "True", "AllComponentsReady", ""),
		cond(pgv1.ConditionMajorUpgrade, "False", pgv1.ReasonUpgradePreflightFailed, msg))
	pc.Status.Upgrade = &pgv1.MajorUpgradeStatus{From: 15, To: 17, Phase: pgv1.UpgradePreflight, Message: msg}
	e, err := reader(pc).ExplainCluster(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	advice := AdviceFor(pgv1.ConditionMajorUpgrade, pgv1.ReasonUpgradePreflightFailed)
	if !e.Ready || e.Upgrade == nil || e.Upgrade.To != 17 || e.Upgrade.Advice != advice || advice == genericAdvice {
		t.Fatalf("explanation %+v (upgrade %+v): want Ready with the upgrade and its own advice", e, e.Upgrade)
	}
	var b bytes.Buffer
	if err := WriteExplanation(&b, e); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PostgresCluster default/shop is Ready.\n",
		"  upgrade:     15 -> 17 Preflight: MajorUpgrade=False UpgradePreflightFailed: " + msg + "\n",
		"  what to do:  " + advice + "\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("explain lacks %q:\n%s", want, b.String())
		}
	}

	done := cluster(pgv1.PhaseReady, cond("Ready", "True", "AllComponentsReady", ""),
		cond(pgv1.ConditionMajorUpgrade, "True", pgv1.ReasonUpgradeSucceeded, "PostgreSQL 17.6 runs"))
	done.Status.Upgrade = &pgv1.MajorUpgradeStatus{From: 15, To: 17, Phase: pgv1.UpgradeSucceeded}
	if e, err := reader(done).ExplainCluster(t.Context(), "shop"); err != nil || e.Upgrade != nil {
		t.Errorf("a succeeded upgrade: %+v, %v; want nothing said", e, err)
	}
}
