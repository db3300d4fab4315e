package node

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const cgroupMount = "/sys/fs/cgroup"

// cgroups is kubelet's cgroup root, made by the node in every cgroup v1
// hierarchy (kubelet refuses a root that does not exist) and removed with
// everything below it when the node stops.
type cgroups struct {
	root string // e.g. /setpoint-node-1234
	dirs []string
}

// makeCgroups creates root in each hierarchy mounted under /sys/fs/cgroup.
// A cpuset child starts with no CPUs or memory nodes: it gets its parent's.
func makeCgroups(root string) (*cgroups, error) {
	entries, err := os.ReadDir(cgroupMount)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", cgroupMount, err)
	}
	cg := &cgroups{root: root}
	for _, e := range entries {
		parent := filepath.Join(cgroupMount, e.Name())
		if _, err := os.Stat(filepath.Join(parent, "cgroup.procs")); err != nil {
			continue // not a hierarchy (a symlink such as cpu,cpuacct is seen through its target)
		}
		dir := filepath.Join(parent, root)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return cg, fmt.Errorf("create cgroup %s: %w", dir, err)
		}
		cg.dirs = append(cg.dirs, dir)
		if err := inheritCpuset(parent, dir); err != nil {
			return cg, err
		}
	}
	return cg, nil
}

func inheritCpuset(parent, dir string) error {
	for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
		data, err := os.ReadFile(filepath.Join(parent, f))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return fmt.Errorf("read %s: %w", f, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			return fmt.Errorf("write %s in %s: %w", f, dir, err)
		}
	}
	return nil
}

// remove deletes every cgroup below and including the root, deepest first.
// A cgroup whose processes were just killed stays busy a moment, so it
// tries for a few seconds before it fails.
func (cg *cgroups) remove() (err error) {
	for range 50 {
		if err = cg.removeOnce(); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

func (cg *cgroups) removeOnce() error {
	var errs []string
	for _, top := range cg.dirs {
		var dirs []string
		_ = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
		for _, d := range dirs {
			if err := syscall.Rmdir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Sprintf("%s: %v", d, err))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("remove cgroups: %s", strings.Join(errs, "; "))
	}
	return nil
}

// existingCgroupDirs finds root in every hierarchy, for a node whose
// process is gone.
func existingCgroupDirs(root string) []string {
	matches, _ := filepath.Glob(filepath.Join(cgroupMount, "*", strings.TrimPrefix(root, "/")))
	return matches
}

// killAll kills every process in the node's cgroups (its containers, which
// only the node's runc put there), so that the cgroups can be removed.
func (cg *cgroups) killAll() {
	for _, top := range cg.dirs {
		_ = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.Name() != "cgroup.procs" {
				return nil
			}
			data, _ := os.ReadFile(path)
			for _, f := range strings.Fields(string(data)) {
				if pid, err := strconv.Atoi(f); err == nil {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return nil
		})
	}
}
