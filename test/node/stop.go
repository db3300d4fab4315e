package node

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Stop ends every process the node started (kubelet first, etcd last),
// removes what containerd left, unmounts, removes the cgroups and the
// namespace, restores the sysctls and removes the state directory. Every
// step runs even when an earlier one fails; the failures are returned
// together. It is safe to call more than once.
func (n *Node) Stop() error {
	n.stopMu.Lock()
	defer n.stopMu.Unlock()
	if n.stopped {
		return errors.Join(n.errs...)
	}
	n.stopped = true
	if n.stopSignals != nil {
		n.stopSignals()
	}
	if n.stopStorage != nil {
		n.stopStorage()
	}
	n.stopProcesses()
	if n.dir != "" {
		// A shim of a container containerd was still starting while
		// removeAll listed them outlives containerd: one from a real-tier
		// run was found 40 minutes after its node stopped.
		killShims(n.dir)
	}
	if n.closeBridge != nil {
		n.closeBridge()
	}
	if n.join != nil {
		n.join.Close()
	}
	if n.dir != "" {
		n.note(unmountUnder(n.dir))
	}
	if n.cgroups != nil {
		n.note(n.cgroups.remove())
	}
	if n.ns != nil {
		n.ns.delete()
	}
	if n.record != nil {
		n.note(cleanHostDirs(n.record.MadeDirs, n.dir))
	}
	if n.sysctls != nil {
		n.note(n.sysctls.restore())
	}
	if n.dir != "" && !n.keepDir {
		n.note(os.RemoveAll(n.dir))
	}
	// Kept when something failed: a later Start tries again.
	if n.record != nil && len(n.errs) == 0 {
		n.note(os.Remove(recordPath(n.record.Pid)))
	}
	if n.hostLock != nil {
		n.hostLock.Close() // closing the file releases the flock
		n.hostLock = nil
	}
	return errors.Join(n.errs...)
}

// stopProcesses stops the processes in reverse start order. Before
// containerd goes, whatever containers kubelet left are killed and
// deleted, so that no shim outlives the node.
func (n *Node) stopProcesses() {
	for i := len(n.procs) - 1; i >= 0; i-- {
		p := n.procs[i]
		if n.containerd != nil && p.Name() == "containerd" && !p.Exited() {
			n.note(n.containerd.removeAll())
		}
		// kube-apiserver once ignored SIGTERM for 20 s: escalate after 5.
		p.Stop(5 * time.Second)
	}
	n.procs = nil
}

func (n *Node) note(err error) {
	if err != nil {
		n.errs = append(n.errs, err)
	}
}

// HostChanges reports what the node left changed on the host after Stop:
// sysctls not restored, the namespace still bound, a containerd shim still
// running, mounts left under the state directory. An empty answer means the host is as it was.
func (n *Node) HostChanges() ([]string, error) {
	var left []string
	diff, err := n.sysctls.changed()
	if err != nil {
		return nil, err
	}
	left = append(left, diff...)
	if n.ns != nil {
		if _, err := os.Stat(n.ns.Path); err == nil {
			left = append(left, "network namespace still bound at "+n.ns.Path)
		}
	}
	if n.dir != "" {
		for _, pid := range shimsOf(n.dir) {
			left = append(left, fmt.Sprintf("containerd shim left: pid %d", pid))
		}
		mounts, err := mountsUnder(n.dir)
		if err != nil {
			return nil, err
		}
		for _, m := range mounts {
			left = append(left, "mount left: "+m)
		}
	}
	if n.record != nil {
		for _, d := range n.record.MadeDirs {
			if _, err := os.Lstat(d); err == nil {
				left = append(left, "host directory left: "+d)
			}
		}
	}
	if n.cgroups != nil {
		for _, d := range n.cgroups.dirs {
			if _, err := os.Stat(d); err == nil {
				left = append(left, fmt.Sprintf("cgroup left: %s", d))
			}
		}
	}
	return left, nil
}
