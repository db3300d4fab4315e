package leaderelection

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/ptr"
)

const (
	leaseNS   = "setpoint-system"
	leaseName = "setpoint-leader"
	me        = "replica-a"
)

// fastConfig is a Lease with timings short enough for a unit test.
func fastConfig() Config {
	return Config{Namespace: leaseNS, Name: leaseName, Identity: me,
		LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond}
}

func newTestElector(t *testing.T, client *fake.Clientset, cfg Config) *Elector {
	t.Helper()
	e, err := newElector(client, client, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func holder(t *testing.T, client *fake.Clientset) string {
	t.Helper()
	l, err := client.CoordinationV1().Leases(leaseNS).Get(context.WithoutCancel(t.Context()), leaseName, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// heldBy is a Lease held by identity, renewed now, for duration.
func heldBy(identity string, duration time.Duration) *coordinationv1.Lease {
	now := metav1.NewMicroTime(time.Now())
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: leaseNS, Name: leaseName},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(identity), LeaseDurationSeconds: ptr.To(int32(duration / time.Second)),
			AcquireTime: &now, RenewTime: &now},
	}
}

// runElector runs e.Run in the background; the returned channel yields its
// error.
func runElector(ctx context.Context, e *Elector, run func(context.Context) error) <-chan error {
	out := make(chan error, 1)
	go func() { out <- e.Run(ctx, run) }()
	return out
}

func waitErr(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return")
		return nil
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// On stop, run returns while the Lease is still held (phase one), and only
// then is the Lease released (phase two).
func TestStopDrainsThenReleases(t *testing.T) {
	client := fake.NewClientset()
	e := newTestElector(t, client, fastConfig())
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	var heldWhileDraining string
	done := runElector(ctx, e, func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		heldWhileDraining = holder(t, client)
		return nil
	})
	<-started
	if !e.IsLeader() || holder(t, client) != me {
		t.Fatalf("running without holding the Lease (holder %q)", holder(t, client))
	}
	cancel()
	if err := waitErr(t, done); err != nil {
		t.Fatalf("Run = %v after a stop, want nil", err)
	}
	if heldWhileDraining != me {
		t.Errorf("Lease holder while draining = %q, want %q: released before the workers drained", heldWhileDraining, me)
	}
	if h := holder(t, client); h != "" {
		t.Errorf("Lease holder after stop = %q, want released", h)
	}
}

// A leader whose controllers fail does not keep the Lease while running
// nothing: Run releases it and returns the error, so the process exits.
func TestRunErrorReleasesTheLeaseAndIsReturned(t *testing.T) {
	client := fake.NewClientset()
	e := newTestElector(t, client, fastConfig())
	boom := errors.New("informers: CRD not served")
	done := runElector(t.Context(), e, func(context.Context) error { return boom })
	err := waitErr(t, done)
	if !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want the controllers' error", err)
	}
	if h := holder(t, client); h != "" {
		t.Errorf("Lease holder after the controllers failed = %q, want released", h)
	}
}

// run returning without an error while it should keep running is an error
// all the same.
func TestRunReturningEarlyIsAnError(t *testing.T) {
	client := fake.NewClientset()
	e := newTestElector(t, client, fastConfig())
	err := waitErr(t, runElector(t.Context(), e, func(context.Context) error { return nil }))
	if !errors.Is(err, errRunReturned) || holder(t, client) != "" {
		t.Fatalf("Run = %v, holder %q; want errRunReturned and the Lease released", err, holder(t, client))
	}
}

// A leader that cannot renew stops its controllers and reports
// ErrLeadershipLost; its watchdog check fails meanwhile.
func TestLostLeaseStopsRunAndFailsTheWatchdog(t *testing.T) {
	client := fake.NewClientset()
	// Reactors are installed before the elector runs: the fake's reactor
	// chain is not safe to change concurrently.
	var failing atomic.Bool
	client.PrependReactor("update", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		return failing.Load(), nil, errors.New("apiserver unreachable")
	})
	e := newTestElector(t, client, fastConfig())
	started := make(chan struct{})
	stopped := make(chan struct{})
	done := runElector(t.Context(), e, func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		close(stopped)
		return nil
	})
	<-started
	failing.Store(true)
	if err := waitErr(t, done); !errors.Is(err, ErrLeadershipLost) {
		t.Fatalf("Run = %v, want ErrLeadershipLost", err)
	}
	select {
	case <-stopped:
	default:
		t.Error("Run returned before the controllers stopped")
	}
	waitFor(t, "watchdog check failing for a leader that stopped renewing", func() bool {
		return e.Watchdog().Check(nil) != nil
	})
}

// A standby campaigns again the moment the holder releases the Lease,
// without waiting for its next retry.
func TestStandbyTakesAReleasedLeaseAtOnce(t *testing.T) {
	client := fake.NewClientset(heldBy("replica-b", time.Hour))
	cfg := fastConfig()
	// A retry far longer than the test's patience: only the release-watch
	// can make this replica lead in time.
	cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod = 10*time.Minute, 5*time.Minute, 2*time.Minute
	e := newTestElector(t, client, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	started := make(chan struct{})
	done := runElector(ctx, e, func(ctx context.Context) error { close(started); <-ctx.Done(); return nil })
	// Wait until the first attempt has seen the Lease held.
	waitFor(t, "first acquire attempt", func() bool {
		for _, a := range client.Actions() {
			if a.GetVerb() == "get" && a.GetResource().Resource == "leases" {
				return true
			}
		}
		return false
	})
	select {
	case <-started:
		t.Fatal("led while another replica held the Lease")
	default:
	}
	released := heldBy("", time.Second)
	released.Spec.HolderIdentity = nil
	if _, err := client.CoordinationV1().Leases(leaseNS).Update(t.Context(), released, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the standby did not take the released Lease before its next retry")
	}
	if h := holder(t, client); h != me {
		t.Errorf("holder %q, want %q", h, me)
	}
	cancel()
	if err := waitErr(t, done); err != nil {
		t.Fatal(err)
	}
}

// A release seen just as this replica acquires the Lease must not cancel the
// campaign between acquiring and OnStartedLeading: the replica leads with a
// live context and keeps the Lease.
func TestReleaseWhileAcquiringDoesNotCancelTheCampaign(t *testing.T) {
	client := fake.NewClientset()
	fw := watch.NewFake()
	var once sync.Once
	watching := make(chan struct{})
	client.PrependWatchReactor("leases", func(k8stesting.Action) (bool, watch.Interface, error) {
		handled := false
		once.Do(func() { handled = true; close(watching) })
		if handled {
			return true, fw, nil
		}
		return false, nil, nil
	})
	// The Lease is created (this replica acquires) exactly while a release
	// event of the previous holder is delivered to the release-watch.
	client.PrependReactor("create", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		select {
		case <-watching:
		default:
			// The fake serialises its reactors, so wait for the watch
			// by failing this attempt; the elector retries.
			return true, nil, errors.New("release-watch not started yet")
		}
		released := heldBy("", time.Second)
		released.Spec.HolderIdentity = nil
		go fw.Modify(released)
		_ = wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 5*time.Second, true,
			func(context.Context) (bool, error) { return fw.IsStopped(), nil })
		time.Sleep(50 * time.Millisecond) // let the watch's callback act, if it is going to
		return false, nil, nil            // the tracker creates the Lease
	})
	e := newTestElector(t, client, fastConfig())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	type start struct {
		err    error
		holder string
	}
	started := make(chan start, 2)
	done := runElector(ctx, e, func(ctx context.Context) error {
		started <- start{ctx.Err(), holder(t, client)}
		<-ctx.Done()
		return nil
	})
	var s start
	select {
	case s = <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("never led")
	}
	if s.err != nil || s.holder != me {
		t.Fatalf("led with context error %v and holder %q, want a live context and the Lease held", s.err, s.holder)
	}
	if !fw.IsStopped() {
		t.Fatal("the release event was never consumed: the test proves nothing")
	}
	if h := holder(t, client); h != me || !e.IsLeader() {
		t.Errorf("after the release event: holder %q, leader %v; want to keep leading", h, e.IsLeader())
	}
	cancel()
	if err := waitErr(t, done); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
		t.Error("run started twice")
	default:
	}
}

// The campaign lock: a write after abandoning is refused; abandoning after
// acquiring, or for a campaign that is over, does nothing.
func TestCampaignLock(t *testing.T) {
	client := fake.NewClientset()
	e := newTestElector(t, client, fastConfig())
	l := e.lock
	rec := func(holder string) resourcelock.LeaderElectionRecord {
		return resourcelock.LeaderElectionRecord{HolderIdentity: holder, LeaseDurationSeconds: 2}
	}

	first := l.reset()
	if !l.abandon(first) {
		t.Fatal("a campaign that has not acquired could not be abandoned")
	}
	if err := l.Create(t.Context(), rec(me)); !errors.Is(err, errCampaignAbandoned) {
		t.Fatalf("Create after abandon = %v, want errCampaignAbandoned", err)
	}
	if h := holder(t, client); h != "" {
		t.Fatalf("an abandoned campaign wrote the Lease (holder %q)", h)
	}

	second := l.reset()
	if l.abandon(first) {
		t.Error("a late abandon of the previous campaign applied to the new one")
	}
	if err := l.Create(t.Context(), rec(me)); err != nil {
		t.Fatal(err)
	}
	if l.abandon(second) {
		t.Error("a campaign that acquired the Lease was abandoned")
	}
	if h := holder(t, client); h != me {
		t.Errorf("holder %q, want %q", h, me)
	}
}
