package main

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	setpointle "github.com/setpoint-dev/setpoint/pkg/leaderelection"
)

func TestLeaderElectionDefaults(t *testing.T) {
	cfg := configFor(t)
	if !cfg.LeaderElect {
		t.Error("LeaderElect = false, want true by default")
	}
	want := setpointle.Config{
		Namespace: "setpoint-system", Name: "setpoint-leader", Identity: "",
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
	}
	if cfg.LeaderElection != want {
		t.Errorf("LeaderElection = %+v, want %+v", cfg.LeaderElection, want)
	}
	cfg = configFor(t, "--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline=20s",
		"--leader-elect-retry-period=5s", "--leader-election-namespace=ops", "--leader-election-id=pg",
		"--leader-election-identity=me")
	want = setpointle.Config{
		Namespace: "ops", Name: "pg", Identity: "me",
		LeaseDuration: 30 * time.Second, RenewDeadline: 20 * time.Second, RetryPeriod: 5 * time.Second,
	}
	if cfg.LeaderElection != want {
		t.Errorf("LeaderElection = %+v, want %+v", cfg.LeaderElection, want)
	}
}

// Every timing is judged at start with a message naming the flags, and
// exactly as client-go's elector would judge it after connecting: a timing
// accepted here never fails later, and one refused here would fail there.
func TestLeaseTimingValidation(t *testing.T) {
	for _, tc := range []struct {
		name, lease, renew, retry string
		want                      string // "" accepts
	}{
		{"defaults", "15s", "10s", "2s", ""},
		{"the e2e tests' timing", "6s", "4s", "500ms", ""},
		{"renew just above 1.2 × retry", "15s", "2401ms", "2s", ""},
		{"lease zero", "0s", "10s", "2s", "--leader-elect-lease-duration must be positive, got 0s"},
		{"renew negative", "15s", "-1s", "2s", "--leader-elect-renew-deadline must be positive, got -1s"},
		{"retry zero", "15s", "10s", "0s", "--leader-elect-retry-period must be positive, got 0s"},
		{"renew equals lease", "15s", "15s", "2s", "--leader-elect-renew-deadline (15s) must be shorter than " +
			"--leader-elect-lease-duration (15s): a leader must stop before its Lease can pass to another replica"},
		{"renew above lease", "15s", "20s", "2s", "--leader-elect-renew-deadline (20s) must be shorter than " +
			"--leader-elect-lease-duration (15s): a leader must stop before its Lease can pass to another replica"},
		{"renew equals retry", "15s", "2s", "2s", "--leader-elect-renew-deadline (2s) must be longer than 1.2 × " +
			"--leader-elect-retry-period (2s): a jittered retry must fit before the deadline"},
		{"renew equals 1.2 × retry", "15s", "2.4s", "2s", "--leader-elect-renew-deadline (2.4s) must be longer than 1.2 × " +
			"--leader-elect-retry-period (2s): a jittered retry must fit before the deadline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := parsed(t, "--leader-elect-lease-duration="+tc.lease,
				"--leader-elect-renew-deadline="+tc.renew, "--leader-elect-retry-period="+tc.retry)
			err := o.validate()
			if got := errString(err); got != tc.want {
				t.Fatalf("validate() = %q, want %q", got, tc.want)
			}
			if clientGoErr := clientGoJudges(o); (clientGoErr == nil) != (err == nil) {
				t.Errorf("client-go's elector says %v where validate says %v", clientGoErr, err)
			}
		})
	}
}

// Without leader election the timing is unused, so it is not judged.
func TestLeaseTimingIgnoredWithoutLeaderElection(t *testing.T) {
	o := parsed(t, "--leader-elect=false", "--leader-elect-renew-deadline=20s")
	if err := o.validate(); err != nil {
		t.Fatalf("validate() = %v, want nil with --leader-elect=false", err)
	}
}

// clientGoJudges builds client-go's elector with o's timing over a fake
// client: its constructor holds client-go's own checks.
func clientGoJudges(o *options) error {
	_, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: "ns", Name: "lease"},
			Client:     fake.NewClientset().CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: "test"},
		},
		LeaseDuration: o.leaseDuration, RenewDeadline: o.renewDeadline, RetryPeriod: o.retryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{OnStartedLeading: func(context.Context) {}, OnStoppedLeading: func() {}},
	})
	return err
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
