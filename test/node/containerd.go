package node

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// containerdConfig is containerd 1.6's configuration (version 2). Root,
// state, socket and the opt path are the node's own, so that nothing of a
// system containerd is used or changed.
//   - restrict_oom_score_adj: this VM has no CAP_SYS_RESOURCE in its
//     bounding set, so runc cannot lower oom_score_adj ("can't get final
//     child's PID from pipe: EOF" otherwise).
//   - SystemdCgroup off: kubelet drives cgroupfs (cgroup v1, no systemd).
const containerdConfig = `version = 2
root = %[1]q
state = %[2]q
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = %[3]q

[ttrpc]
  address = %[4]q

[plugins."io.containerd.internal.v1.opt"]
  path = %[5]q

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[6]q
  restrict_oom_score_adj = true
  enable_unprivileged_ports = true
  enable_unprivileged_icmp = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = %[7]q
`

// defaultSandboxImage is the pause image's reference when the node runs
// without images (Options.Images empty): Node readiness does not need it.
const defaultSandboxImage = "localhost/setpoint/pause:1"

// containerd is the node's containerd: its directories and socket.
type containerd struct {
	dir     string
	socket  string
	sandbox string // the pause image's reference
}

func newContainerd(stateDir, sandbox string) *containerd {
	dir := filepath.Join(stateDir, "containerd")
	return &containerd{dir: dir, socket: filepath.Join(dir, "containerd.sock"), sandbox: sandbox}
}

// writeConfig writes config.toml and returns its path.
func (c *containerd) writeConfig(cniConfDir string) (string, error) {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return "", fmt.Errorf("containerd dir: %w", err)
	}
	cfg := fmt.Sprintf(containerdConfig,
		filepath.Join(c.dir, "root"), filepath.Join(c.dir, "state"), c.socket,
		filepath.Join(c.dir, "ttrpc.sock"), filepath.Join(c.dir, "opt"),
		c.sandbox, cniConfDir)
	path := filepath.Join(c.dir, "config.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		return "", fmt.Errorf("write containerd config: %w", err)
	}
	return path, nil
}

// dialable reports whether containerd accepts connections on its socket.
func (c *containerd) dialable(context.Context) error {
	conn, err := net.DialTimeout("unix", c.socket, time.Second)
	if err != nil {
		return err
	}
	return conn.Close()
}

// ctr runs containerd's own client against this containerd, in the
// Kubernetes namespace of its images and containers.
func (c *containerd) ctr(args ...string) (string, error) {
	argv := append([]string{"--address", c.socket, "--namespace", "k8s.io"}, args...)
	out, err := exec.Command("ctr", argv...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("ctr %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// imageTargets maps each image name containerd knows to its target's
// digest.
func (c *containerd) imageTargets() (map[string]string, error) {
	out, err := c.ctr("images", "list")
	if err != nil {
		return nil, err
	}
	targets := map[string]string{}
	for _, line := range strings.Split(out, "\n")[1:] { // a header first
		if f := strings.Fields(line); len(f) >= 3 {
			targets[f[0]] = f[2]
		}
	}
	return targets, nil
}

// podNetns matches the network namespaces containerd's CRI binds for Pod
// sandboxes; they are host mounts and outlive containerd.
var podNetns = regexp.MustCompile(`/var/run/netns/cni-[0-9a-f-]+`)

// removeAll kills and deletes every task and container left, so that no
// shim outlives the node, and removes the namespaces of the Pod sandboxes
// among them (kubelet does not stop Pods when it stops).
func (c *containerd) removeAll() error {
	out, err := c.ctr("containers", "list", "--quiet")
	if err != nil {
		return err
	}
	var errs []string
	for _, id := range strings.Fields(out) {
		info, _ := c.ctr("containers", "info", id)
		defer removePodNetns(podNetns.FindAllString(info, -1))
		_, _ = c.ctr("tasks", "kill", "--signal", "SIGKILL", id)
		_, _ = c.ctr("tasks", "delete", "--force", id)
		if _, err := c.ctr("containers", "delete", id); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("remove containers: %s", strings.Join(errs, "; "))
	}
	return nil
}

// removePodNetns unmounts and removes the sandbox namespaces at paths.
func removePodNetns(paths []string) {
	for _, p := range paths {
		_ = syscall.Unmount(p, syscall.MNT_DETACH)
		_ = os.Remove(p)
	}
}
