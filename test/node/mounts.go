package node

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"
)

// unmountUnder detaches every mount at or below dir (kubelet's secret and
// tmpfs volumes, containerd's overlay and shm mounts), deepest first.
func unmountUnder(dir string) error {
	points, err := mountsUnder(dir)
	if err != nil {
		return err
	}
	var errs []string
	for _, p := range points {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", p, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("unmount: %s", strings.Join(errs, "; "))
	}
	return nil
}

// mountsUnder lists the mount points at or below dir, deepest first.
func mountsUnder(dir string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read mounts: %w", err)
	}
	defer f.Close()
	var points []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 5 {
			continue
		}
		// The kernel escapes spaces and the like as octal; our paths have none.
		p := fields[4]
		if p == dir || strings.HasPrefix(p, dir+"/") {
			points = append(points, p)
		}
	}
	sort.Slice(points, func(i, j int) bool { return len(points[i]) > len(points[j]) })
	return points, s.Err()
}
