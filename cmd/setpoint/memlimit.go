package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// cgroupLimitFiles are where a container's memory limit is read: cgroup
// v2, then v1.
var cgroupLimitFiles = []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"}

// noLimit: cgroup v1 reports "no limit" as a huge page-rounded number.
const noLimit = 1 << 62

// cgroupMemoryLimit returns the memory limit of the cgroup the process
// runs in, read below root ("/" in production), and false when none is set.
func cgroupMemoryLimit(root string) (int64, bool) {
	for _, f := range cgroupLimitFiles {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(b))
		if v == "max" {
			return 0, false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n >= noLimit {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// applyDefaultMemoryLimit gives the Go runtime a soft memory limit of 90%
// of the container's when GOMEMLIMIT is unset (the shipped Deployment sets
// it from the memory limit; a hand-written one may not): the collector
// then works harder near the limit instead of the process being
// OOM-killed. It returns the limit set, or 0.
func applyDefaultMemoryLimit(root string) int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	limit, ok := cgroupMemoryLimit(root)
	if !ok {
		return 0
	}
	soft := limit / 10 * 9
	debug.SetMemoryLimit(soft)
	return soft
}

// defaultGCPercent is the collector's target when GOGC is unset: a new
// cycle starts when the heap has grown by half of what the last one left
// live, instead of Go's default 100 (doubled). The operator's heap is
// mostly its informer caches, so Go's default kept about as much garbage
// and freed memory as the caches themselves; 50 trades some GC CPU during
// bursts of work for a resident size closer to the live heap (both
// figures: docs/benchmarks/history.md).
const defaultGCPercent = 50

// applyDefaultGCPercent sets defaultGCPercent unless GOGC is set. It
// returns the percentage set, or 0.
func applyDefaultGCPercent() int {
	if os.Getenv("GOGC") != "" {
		return 0
	}
	debug.SetGCPercent(defaultGCPercent)
	return defaultGCPercent
}
