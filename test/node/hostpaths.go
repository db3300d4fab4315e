package node

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// hostDirs are host paths written whatever the node's configuration says:
// kubelet's device-plugin socket (/var/lib/kubelet/device-plugins) and its
// /var/log/containers links, kube-controller-manager's and kubelet's
// FlexVolume directory, libcni's result cache (/var/lib/cni/results; the
// Debian containerd 1.6 has no setting for it) and `ip netns`'s /run/netns.
var hostDirs = []string{"/var/lib/kubelet", "/usr/libexec/kubernetes", "/var/log/containers", "/var/lib/cni", "/run/netns"}

// missingHostDirs lists the hostDirs that do not exist yet: the node made
// them, so Stop removes them.
func missingHostDirs() []string {
	var missing []string
	for _, d := range hostDirs {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, d)
		}
	}
	return missing
}

// cleanHostDirs removes the hostDirs the node made and, in those that were
// there before, only the node's own entries: links into its directory and
// the CNI results of its network.
func cleanHostDirs(made []string, dir string) error {
	var errs []error
	errs = append(errs, removeLinksInto("/var/log/containers", dir), removeCNIResults())
	for _, d := range made {
		if d == "/run/netns" {
			// `ip netns` bind-mounts it on itself. Other namespaces may
			// have come meanwhile: only an empty one goes.
			if entries, err := os.ReadDir(d); err == nil && len(entries) == 0 {
				_ = syscall.Unmount(d, syscall.MNT_DETACH)
				errs = append(errs, os.Remove(d))
			}
			continue
		}
		errs = append(errs, os.RemoveAll(d))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("clean host directories: %w", err)
	}
	return nil
}

func removeLinksInto(linkDir, dir string) error {
	entries, err := os.ReadDir(linkDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(linkDir, e.Name())
		if target, err := os.Readlink(p); err == nil && strings.HasPrefix(target, dir+"/") {
			_ = os.Remove(p)
		}
	}
	return nil
}

// removeCNIResults removes the cached results of the node's network
// (<network>-<container>-eth0) and of the loopback of those containers.
func removeCNIResults() error {
	const results = "/var/lib/cni/results"
	ours, err := filepath.Glob(filepath.Join(results, cniNetwork+"-*"))
	if err != nil {
		return err
	}
	for _, p := range ours {
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), cniNetwork+"-"), "-eth0")
		_ = os.Remove(filepath.Join(results, "cni-loopback-"+id+"-lo"))
		_ = os.Remove(p)
	}
	return nil
}
