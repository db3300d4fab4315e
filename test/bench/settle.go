package main

import (
	"context"
	"syscall"
	"time"
)

// settle waits until the operator's API writes stop (unchanged for 1 s,
// at most 10 s) and returns that scrape. Events leave the operator
// asynchronously, through the recorder's own queue and client: the
// Ready Event of the last object is often sent just after the status
// that made it Ready, and a scrape at that moment would miss it.
func settle(ctx context.Context, op *operatorProc) (scrape, error) {
	s, err := op.scrape()
	if err != nil {
		return nil, err
	}
	last, since := sumWrites(s.apiCounts()), time.Now()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && time.Since(since) < time.Second {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
		if s, err = op.scrape(); err != nil {
			return nil, err
		}
		if w := sumWrites(s.apiCounts()); w != last {
			last, since = w, time.Now()
		}
	}
	return s, nil
}

// settleDisk writes the machine's dirty pages back (sync(2)) and returns
// how long that took. The phase before leaves gigabytes of them: a
// thousand CREATE DATABASE on the shared server, which runs without fsync.
// Without this step the kernel writes them back during the next phase,
// which then measures the disk's backlog as much as its own work: the
// lower bound would pay for the operator's databases, and the latency
// stream for the lower bound's.
func settleDisk() time.Duration {
	start := time.Now()
	syscall.Sync()
	return time.Since(start)
}
