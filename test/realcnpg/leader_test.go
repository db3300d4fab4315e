package realcnpg

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// leaderLease is the Lease dist/install.yaml's operator elects its leader
// with (--leader-election-id's default, in --leader-election-namespace).
const leaderLease = "setpoint-leader"

// The in-cluster operator as shipped: two replicas, one holds the Lease.
// Deleting the leader's Pod hands the Lease over once (the leader
// releases it on SIGTERM, so the standby does not wait out the lease
// duration), the other replica leads, and a PostgresCluster made after
// the handover becomes Ready under it. One made before, Ready under the
// first leader, is not reconciled twice: the second leader takes it as
// it stands (takeover).
func TestLeaderHandoverOnRealCNPG(t *testing.T) {
	ns := kit.Namespace(t)
	smallClass(t, "small-"+ns)
	createCluster(t, ns, "kept", "small-"+ns)
	kit.WaitCluster(t, ns, "kept", pgv1.PhaseReady, 6*time.Minute)
	kept := readTakeover(t, ns, "kept")

	var lease *coordinationv1.Lease
	kit.Eventually(t, time.Minute, "a replica holds the Lease", func(ctx context.Context) (bool, string, error) {
		var err error
		lease, err = kube.CoordinationV1().Leases(SetpointNamespace).Get(ctx, leaderLease, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, "no Lease yet", nil
		}
		return err == nil && lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "", "no holder", err
	})
	leader := podOf(t, *lease.Spec.HolderIdentity)
	transitions := int32(0)
	if lease.Spec.LeaseTransitions != nil {
		transitions = *lease.Spec.LeaseTransitions
	}
	start := time.Now()
	if err := kube.CoreV1().Pods(SetpointNamespace).Delete(t.Context(), leader, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete the leader's Pod %s: %v", leader, err)
	}
	var next string
	kit.Eventually(t, 90*time.Second, "another replica leads", func(ctx context.Context) (bool, string, error) {
		l, err := kube.CoordinationV1().Leases(SetpointNamespace).Get(ctx, leaderLease, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
			return false, "no holder", err
		}
		next = podOf(t, *l.Spec.HolderIdentity)
		return next != leader, "held by " + next, nil
	})
	t.Logf("leader %s deleted; %s leads after %s", leader, next, time.Since(start).Round(100*time.Millisecond))
	l, err := kube.CoordinationV1().Leases(SetpointNamespace).Get(t.Context(), leaderLease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Spec.LeaseTransitions == nil || *l.Spec.LeaseTransitions != transitions+1 {
		t.Errorf("Lease transitions %v after one handover, want %d", l.Spec.LeaseTransitions, transitions+1)
	}
	if _, err := kube.CoreV1().Pods(SetpointNamespace).Get(t.Context(), next, metav1.GetOptions{}); err != nil {
		t.Errorf("the new leader %s is not a Pod of the Deployment: %v", next, err)
	}

	createCluster(t, ns, "shop", "small-"+ns)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	// The new leader queued every PostgresCluster when its caches synced,
	// kept before shop, which was made later and needed passes of its own
	// to become Ready: kept has had its first pass under the new leader.
	kept.unchanged(t, readTakeover(t, ns, "kept"))
	waitDeploymentAvailable(t)
}

// takeover is what a second pass of an unchanged, Ready cluster must leave
// as it is: the password setpoint generated for its monitor role, the
// CNPG Cluster's spec (its generation), and the Ready condition (its last
// transition).
type takeover struct {
	monitorPassword string
	cnpgGeneration  int64
	readySince      metav1.Time
}

func readTakeover(t *testing.T, ns, name string) takeover {
	t.Helper()
	ctx := t.Context()
	s, err := kube.CoreV1().Secrets(ns).Get(ctx, naming.MonitorSecret(name), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := pg.CNPGV1().Clusters(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionReady)
	if ready == nil || ready.Status != metav1.ConditionTrue {
		t.Fatalf("PostgresCluster %s is not Ready: %+v", name, ready)
	}
	return takeover{monitorPassword: string(s.Data["password"]), cnpgGeneration: c.Generation, readySince: ready.LastTransitionTime}
}

func (before takeover) unchanged(t *testing.T, after takeover) {
	t.Helper()
	if after.monitorPassword != before.monitorPassword {
		t.Error("the new leader generated a new password for the monitor role of a cluster the first leader had made")
	}
	if after.cnpgGeneration != before.cnpgGeneration {
		t.Errorf("the new leader changed the CNPG Cluster's spec: generation %d, %d before the handover", after.cnpgGeneration, before.cnpgGeneration)
	}
	if !after.readySince.Equal(&before.readySince) {
		t.Errorf("the PostgresCluster's Ready condition moved (last transition %s, %s before the handover)", after.readySince, before.readySince)
	}
}

// podOf is the Pod name in a leader identity (client-go's default
// identity is the hostname, which is the Pod's name, and a suffix).
func podOf(t *testing.T, identity string) string {
	t.Helper()
	name, _, _ := strings.Cut(identity, "_")
	return name
}

// waitDeploymentAvailable waits until the Deployment has its two replicas
// available again, so the tests after this one start from the shipped
// shape.
func waitDeploymentAvailable(t *testing.T) {
	t.Helper()
	kit.Eventually(t, 3*time.Minute, "the operator's Deployment is available again", func(ctx context.Context) (bool, string, error) {
		d, err := kube.AppsV1().Deployments(SetpointNamespace).Get(ctx, "setpoint", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return d.Status.AvailableReplicas == 2 && d.Status.UpdatedReplicas == 2, fmt.Sprintf("available %d, updated %d", d.Status.AvailableReplicas, d.Status.UpdatedReplicas), nil
	})
}
