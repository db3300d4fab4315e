package node

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// recordDir holds one record per running node. A test binary killed
// outright (SIGKILL, or go test's -timeout panic) runs no cleanup: its
// processes die with it (parent-death signal) but containerd's shims and
// their containers, the namespace, the mounts, the cgroups and kubelet's
// sysctls stay. The next Start finds the record of the dead run and gives
// all of that back.
const recordDir = "/run/setpoint-node"

// record is what a node changed on the host, written before it changes it.
type record struct {
	Pid     int          `json:"pid"`
	Dir     string       `json:"dir"`
	Netns   string       `json:"netns"`
	Cgroup  string       `json:"cgroup"`
	Sysctls savedSysctls `json:"sysctls"`
	// MadeDirs are the hostDirs missing before the node started.
	MadeDirs []string `json:"madeDirs"`
}

func recordPath(pid int) string { return filepath.Join(recordDir, strconv.Itoa(pid)+".json") }

func (r *record) write() error {
	if err := os.MkdirAll(recordDir, 0o700); err != nil {
		return fmt.Errorf("node record dir: %w", err)
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("node record: %w", err)
	}
	if err := os.WriteFile(recordPath(r.Pid), data, 0o600); err != nil {
		return fmt.Errorf("write node record: %w", err)
	}
	return nil
}

// sweepLeftovers cleans up after every recorded node whose process is gone.
func sweepLeftovers() error {
	entries, err := os.ReadDir(recordDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("read %s: %w", recordDir, err)
	}
	var errs []error
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(recordDir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var r record
		if err := json.Unmarshal(data, &r); err != nil || r.Pid == 0 {
			errs = append(errs, fmt.Errorf("node record %s unreadable: %v", e.Name(), err))
			continue
		}
		if alive(r.Pid) {
			continue
		}
		errs = append(errs, r.giveBack())
	}
	return errors.Join(errs...)
}

// giveBack undoes a dead node's changes, in the order Stop does.
func (r *record) giveBack() error {
	var errs []error
	killShims(r.Dir)
	cg := &cgroups{root: r.Cgroup}
	cg.dirs = existingCgroupDirs(r.Cgroup)
	cg.killAll()
	errs = append(errs, unmountUnder(r.Dir), cg.remove())
	_ = ip("netns", "delete", r.Netns)
	errs = append(errs, cleanHostDirs(r.MadeDirs, r.Dir), r.Sysctls.restore(), os.RemoveAll(r.Dir))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("clean up after node of dead process %d: %w", r.Pid, err)
	}
	return os.Remove(recordPath(r.Pid))
}

func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil || errors.Is(syscall.Kill(pid, 0), syscall.EPERM)
}

// killShims kills the containerd shims whose command line names a socket
// under dir: they were started by that node's containerd, and only they.
func killShims(dir string) {
	for _, pid := range shimsOf(dir) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// shimsOf are the PIDs of the containerd shims whose command line names a
// socket under dir.
func shimsOf(dir string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(data), "\x00")
		if !strings.HasPrefix(filepath.Base(args[0]), "containerd-shim") || !strings.Contains(string(data), dir+"/") {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
