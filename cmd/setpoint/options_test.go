package main

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/operator"
)

// parsed binds a fresh options to args, as main does.
func parsed(t *testing.T, args ...string) *options {
	t.Helper()
	var o options
	fs := flag.NewFlagSet("setpoint", flag.ContinueOnError)
	o.bind(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	return &o
}

// configFor parses args (with a kubeconfig that needs no server),
// validates them and builds the operator's Config, as main does.
func configFor(t *testing.T, args ...string) operator.Config {
	t.Helper()
	o := parsed(t, append([]string{"--kubeconfig", unreachableKubeconfig(t)}, args...)...)
	if err := o.validate(); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	cfg, err := o.config()
	if err != nil {
		t.Fatalf("%v: config: %v", args, err)
	}
	return cfg
}

func TestSampleIntervalZeroTurnsTheCollectorOff(t *testing.T) {
	for _, tc := range []struct {
		args []string
		off  bool
	}{
		{nil, false},
		{[]string{"--postgres-sample-interval=15s"}, false},
		{[]string{"--postgres-sample-interval=0"}, true},
	} {
		cfg := configFor(t, tc.args...)
		if cfg.CollectorOff != tc.off {
			t.Errorf("%v: CollectorOff = %v, want %v", tc.args, cfg.CollectorOff, tc.off)
		}
	}
}

func TestSampleIntervalBelowOneSecondIsRefused(t *testing.T) {
	err := parsed(t, "--postgres-sample-interval=500ms").validate()
	if err == nil || !strings.Contains(err.Error(), "--postgres-sample-interval must be 0 (off) or at least 1s") {
		t.Fatalf("validate() = %v, want the interval named", err)
	}
}

func TestMemoryReturnPeriod(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 10 * time.Second},
		{[]string{"--memory-return-period=0"}, 0},
		{[]string{"--memory-return-period=1m"}, time.Minute},
	} {
		cfg := configFor(t, tc.args...)
		if cfg.MemoryReturn != tc.want {
			t.Errorf("%v: MemoryReturn = %v, want %v", tc.args, cfg.MemoryReturn, tc.want)
		}
	}
	err := parsed(t, "--memory-return-period=100ms").validate()
	if err == nil || !strings.Contains(err.Error(), "--memory-return-period must be 0 (off) or at least 1s") {
		t.Fatalf("validate() = %v, want the period named", err)
	}
}
