package main

import (
	"fmt"
	"time"

	"k8s.io/client-go/tools/leaderelection"
)

// validateLeaseTiming refuses, at start and naming the flags, every timing
// client-go's elector would refuse later, after the operator has already
// connected: each must be positive, the leader must give up renewing
// before its Lease expires for the others (renew < lease), and its
// jittered retries must fit within the renew deadline more than once
// (renew > JitterFactor × retry).
func validateLeaseTiming(lease, renew, retry time.Duration) error {
	for _, d := range []struct {
		flag  string
		value time.Duration
	}{
		{"--leader-elect-lease-duration", lease},
		{"--leader-elect-renew-deadline", renew},
		{"--leader-elect-retry-period", retry},
	} {
		if d.value <= 0 {
			return fmt.Errorf("%s must be positive, got %s", d.flag, d.value)
		}
	}
	if renew >= lease {
		return fmt.Errorf("--leader-elect-renew-deadline (%s) must be shorter than --leader-elect-lease-duration (%s): "+
			"a leader must stop before its Lease can pass to another replica", renew, lease)
	}
	if renew <= time.Duration(leaderelection.JitterFactor*float64(retry)) {
		return fmt.Errorf("--leader-elect-renew-deadline (%s) must be longer than %.1f × --leader-elect-retry-period (%s): "+
			"a jittered retry must fit before the deadline", renew, leaderelection.JitterFactor, retry)
	}
	return nil
}
