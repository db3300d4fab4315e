package e2e_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A CNPG Cluster that turns unrecoverable makes the PostgresCluster Failed,
// and the passes that record it are counted as failed, not as success; no
// other outcome name appears.
func TestFailedCNPGClusterIsCountedAsFailed(t *testing.T) {
	ns := kit.Namespace(t)
	op := startOperator(t, "outcome-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1)})
	newCluster(t, ns, "broken", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "broken", pgv1.PhaseReady, 120*time.Second)
	if n := op.metric(t, "setpoint_reconcile_total", "name", "postgrescluster", "outcome", "failed"); n != 0 {
		t.Fatalf("%v failed passes before anything failed", n)
	}

	sim.ForcePhase(ns, "broken", "Cluster is unrecoverable and needs manual intervention")
	t.Cleanup(func() { sim.ForcePhase(ns, "broken", "") })
	kit.WaitCluster(t, ns, "broken", pgv1.PhaseFailed, 60*time.Second)
	kit.Until(t, 30*time.Second, "a failed pass counted", func(context.Context) (bool, error) {
		return op.metric(t, "setpoint_reconcile_total", "name", "postgrescluster", "outcome", "failed") > 0, nil
	})

	known := map[string]bool{"success": true, "wait": true, "retry": true, "terminal": true, "failed": true, "panic": true}
	for _, s := range op.samples(t, "setpoint_reconcile_total") {
		if !known[s.labels["outcome"]] {
			t.Errorf("outcome %q is not one of success, wait, retry, terminal, failed, panic", s.labels["outcome"])
		}
	}
}
