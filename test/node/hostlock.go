package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// The host holds one node at a time: its network namespace, bridge,
// cgroup root and sysctls have fixed names, and Start sweeps what an
// earlier node left behind. A second Start while a node runs would sweep
// the running one away, so Start first takes an exclusive lock on a file
// every node process on the host shares, and Stop gives it back last.
// The kernel releases it if the process dies.
func hostLockPath() string { return filepath.Join(os.TempDir(), "setpoint-node.lock") }

// lockHost waits for the host's node lock until ctx ends. It polls (a
// blocking flock cannot be cancelled) and says once that it waits.
func lockHost(ctx context.Context) (*os.File, error) {
	f, err := os.OpenFile(hostLockPath(), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the host's node lock: %w", err)
	}
	said := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if err != syscall.EWOULDBLOCK {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if !said {
			fmt.Fprintf(os.Stderr, "node: another node runs on this host; waiting for %s\n", f.Name())
			said = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("wait for the host's node lock %s: %w", f.Name(), ctx.Err())
		case <-time.After(time.Second):
		}
	}
}
