package node

import (
	"fmt"
	"os/exec"
	"strings"
)

// The node's addresses. The node's IP sits on one end of a veth pair whose
// both ends live in the namespace (the kernel here has no dummy driver); only
// the Service range is routed, so any other destination is unreachable and
// no packet leaves.
const (
	nodeIP      = "10.200.0.1"
	nodeCIDR    = nodeIP + "/24"
	serviceCIDR = "10.96.0.0/16"
	apiServerIP = "10.96.0.1" // the kubernetes Service
	dnsIP       = "10.96.0.10"
	podCIDR     = "10.88.0.0/16"
	nodeIf      = "node0"
	peerIf      = "node1"
)

// namedNetns is a network namespace made by `ip netns add`, bound at Path.
type namedNetns struct {
	Name string
	Path string
}

// createNetns makes the namespace and its links. On error the namespace,
// if made, is deleted.
func createNetns(name string) (ns *namedNetns, err error) {
	if err := ip("netns", "add", name); err != nil {
		return nil, err
	}
	ns = &namedNetns{Name: name, Path: "/run/netns/" + name}
	defer func() {
		if err != nil {
			ns.delete()
		}
	}()
	steps := [][]string{
		{"link", "set", "lo", "up"},
		{"link", "add", nodeIf, "type", "veth", "peer", "name", peerIf},
		{"addr", "add", nodeCIDR, "dev", nodeIf},
		{"link", "set", nodeIf, "up"},
		{"link", "set", peerIf, "up"},
		{"route", "add", serviceCIDR, "dev", nodeIf, "src", nodeIP},
	}
	for _, s := range steps {
		if err := ip(append([]string{"-n", name}, s...)...); err != nil {
			return ns, err
		}
	}
	// The far end only gives the node's address a link to sit on.
	if err := ns.exec("sysctl", "-q", "-w", "net.ipv4.conf."+peerIf+".forwarding=0"); err != nil {
		return ns, err
	}
	return ns, nil
}

// exec runs a command inside the namespace (only for short tools: it uses
// `ip netns exec`, which gives the command a mount namespace of its own).
func (ns *namedNetns) exec(cmd ...string) error {
	return ip(append([]string{"netns", "exec", ns.Name}, cmd...)...)
}

// nsenter is the command line that runs path with args in the namespace's
// network but the host's mount namespace.
func (ns *namedNetns) nsenter(path string, args ...string) (string, []string) {
	return "nsenter", append([]string{"--net=" + ns.Path, "--", path}, args...)
}

// delete removes the namespace; the veth pair and any bridge inside go
// with it once no process holds it.
func (ns *namedNetns) delete() {
	_ = ip("netns", "delete", ns.Name)
}

func ip(args ...string) error {
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}
