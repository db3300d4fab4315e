package e2e_test

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A CNPG phase that flaps several times a second for a minute (the
// stand-in forced through "Failing over", "unrecoverable", as the
// failed-restore storm did, and healthy) costs the PostgresCluster a small
// constant of status writes per minute, not one per flip; once CNPG holds
// still, the cluster reports it within seconds.
func TestFlappingCNPGPhaseIsCoalesced(t *testing.T) {
	ns := kit.Namespace(t)
	op := startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1)})
	newCluster(t, ns, "flappy", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "flappy", pgv1.PhaseReady, 120*time.Second)
	settle(t, op)
	ours, theirs := watchClusterStatus(t, ns, "flappy"), watchCNPGStatus(t, ns, "flappy")
	t.Cleanup(func() { sim.ForcePhase(ns, "flappy", "") })

	const window, flip = time.Minute, 200 * time.Millisecond
	phases := []string{"Failing over", "Cluster is unrecoverable and needs manual intervention", ""}
	began := time.Now()
	for i := 0; time.Since(began) < window; i++ {
		sim.ForcePhase(ns, "flappy", phases[i%len(phases)])
		select {
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		case <-time.After(flip):
		}
	}
	flipped, _ := theirs.count()
	writes, seen := ours.count()
	t.Logf("%d CNPG status changes in %v, %d PostgresCluster status writes: %v", flipped, window, writes, seen)
	// The flap happened: on average at least a change a second reached the
	// CNPG Cluster's status — faster than people read, and twelve times the
	// writes allowed below, so mirroring the flips would fail. (Not "most of
	// the 300 flips": on a loaded 2-core machine the stand-in's status
	// writes lag the forced phases, and 146 of 300 arrived in one CI run.)
	if min := int(window / time.Second); flipped < min {
		t.Fatalf("the CNPG Cluster's status changed %d times in %v, want at least %d: the flap did not happen", flipped, window, min)
	}
	// Per phaseMaxHold (30 s) at most one write of what CNPG shows then
	// and one of its becoming healthy, and the first change.
	if writes > 5 {
		t.Errorf("%d status writes of the PostgresCluster in a minute of %d CNPG status changes, want at most 5: %v", writes, flipped, seen)
	}
	if !ours.open() || !theirs.open() {
		t.Fatal("a watch closed during the window: the counts are incomplete")
	}

	// CNPG settles (healthy again): reported within seconds.
	sim.ForcePhase(ns, "flappy", "")
	kit.WaitCluster(t, ns, "flappy", pgv1.PhaseReady, 15*time.Second)
}
