package e2e_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func leaseHolder(ctx context.Context, ns, name string) string {
	l, err := kube.CoordinationV1().Leases(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// waitLeader waits until want holds the default Lease.
func waitLeader(t *testing.T, want string, timeout time.Duration) time.Duration {
	t.Helper()
	return waitLease(t, "setpoint-system", "setpoint-leader", want, timeout)
}

// waitLease waits until want holds the Lease ns/name.
func waitLease(t *testing.T, ns, name, want string, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		return leaseHolder(ctx, ns, name) == want, nil
	})
	if err != nil {
		t.Fatalf("Lease %s/%s is held by %q, want %q", ns, name, leaseHolder(t.Context(), ns, name), want)
	}
	return time.Since(start)
}

// probeCluster creates a PostgresCluster naming a missing class; the
// leader answers with status Failed/ClassNotFound without needing CNPG.
// It returns how long that took.
func probeCluster(t *testing.T, ns, name string) time.Duration {
	t.Helper()
	start := time.Now()
	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       pgv1.PostgresClusterSpec{Class: "no-such-class"},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create probe cluster: %v", err)
	}
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && got.Status.Phase == pgv1.PhaseFailed, err
	})
	if err != nil {
		t.Fatalf("probe cluster %s never reconciled: %v", name, err)
	}
	return time.Since(start)
}

func TestLeaderElectionAndFailover(t *testing.T) {
	ns := kit.Namespace(t)
	a := startOperator(t, "replica-a")
	waitLeader(t, "replica-a", 30*time.Second)
	b := startOperator(t, "replica-b")

	probeCluster(t, ns, "probe-1")
	// The standby runs no controller: no pass, no queue activity.
	if n := b.metric(t, "setpoint_reconcile_total"); n != 0 {
		t.Fatalf("standby ran %v passes", n)
	}
	if n := a.metric(t, "setpoint_reconcile_total"); n == 0 {
		t.Fatalf("leader ran no pass")
	}

	// SIGKILL: the Lease must expire before the standby takes over.
	killed := time.Now()
	a.signal(syscall.SIGKILL)
	waitLeader(t, "replica-b", 30*time.Second)
	probeCluster(t, ns, "probe-2")
	t.Logf("failover after SIGKILL: first reconcile %v after the kill (lease duration 6s, retry 500ms)", time.Since(killed).Round(time.Millisecond))

	// SIGTERM: the leader drains and releases; the standby takes over at once.
	c := startOperator(t, "replica-c")
	termed := time.Now()
	b.signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("replica-b did not exit after SIGTERM:\n%s", b.logs())
	}
	waitLeader(t, "replica-c", 10*time.Second)
	probeCluster(t, ns, "probe-3")
	handover := time.Since(termed)
	t.Logf("failover after SIGTERM: first reconcile %v after the signal", handover.Round(time.Millisecond))
	if handover > 6*time.Second {
		t.Errorf("graceful handover took %v, longer than the lease duration: the Lease was not released", handover)
	}
	_ = c
}
