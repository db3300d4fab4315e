// Command nodesmoke is `make node-smoke`: it brings the real test node up
// (test/node), waits for the Node to be Ready, reports the time and the
// memory it took, stops it, and fails unless the host is as it was: the
// same network interfaces, the sysctls kubelet changed restored, no
// namespace, mount or cgroup left. It needs root.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/test/node"
)

func main() {
	binDir := flag.String("bin-dir", "", "directory of the control-plane and node binaries (default: the repository's bin/)")
	keep := flag.Bool("keep", false, "keep the node's state directory (logs) after stopping")
	timeout := flag.Duration("timeout", 4*time.Minute, "bound on start-up")
	hold := flag.Duration("hold", 0, "keep the node up this long before stopping (to try a signal or a kill)")
	flag.Parse()
	if err := run(*binDir, *keep, *timeout, *hold); err != nil {
		fmt.Fprintf(os.Stderr, "node-smoke: FAIL: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("node-smoke: PASS")
}

func run(binDir string, keep bool, timeout, hold time.Duration) error {
	before, err := interfaceNames()
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := node.Start(context.Background(), node.Options{BinDir: binDir, StartTimeout: timeout, KeepDir: keep})
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	fmt.Printf("node-smoke: Node %s Ready in %s (state %s)\n", n.Name, time.Since(start).Round(100*time.Millisecond), n.Dir())
	checkErr := errors.Join(checkRunning(n, before), checkCluster(n))
	time.Sleep(hold)
	stopStart := time.Now()
	stopErr := n.Stop()
	fmt.Printf("node-smoke: stopped in %s\n", time.Since(stopStart).Round(100*time.Millisecond))
	return errors.Join(checkErr, stopErr, checkHost(n, before))
}

// checkRunning reports memory, and checks the host has no new interface
// and the namespace no default route while the node runs.
func checkRunning(n *node.Node, before []string) error {
	var total int
	for name, pid := range n.Processes() {
		kib := rssKiB(pid)
		total += kib
		fmt.Printf("node-smoke:   %-24s pid %-7d rss %4d MiB\n", name, pid, kib/1024)
	}
	fmt.Printf("node-smoke:   %-24s %11s rss %4d MiB\n", "total", "", total/1024)
	changes, err := n.HostChanges()
	if err != nil {
		return err
	}
	for _, c := range changes {
		fmt.Printf("node-smoke:   while running: %s\n", c)
	}
	now, err := interfaceNames()
	if err != nil {
		return err
	}
	if !slices.Equal(before, now) {
		return fmt.Errorf("host interfaces changed while running: %v, were %v", now, before)
	}
	out, err := exec.Command("ip", "-n", nsName(n), "route", "show", "default").CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip route in the node's namespace: %w: %s", err, out)
	}
	if strings.TrimSpace(string(out)) != "" {
		return fmt.Errorf("the node's namespace has a default route: %s", out)
	}
	return nil
}

// checkHost fails unless Stop gave the host back as it was.
func checkHost(n *node.Node, before []string) error {
	left, err := n.HostChanges()
	if err != nil {
		return err
	}
	after, err := interfaceNames()
	if err != nil {
		return err
	}
	if !slices.Equal(before, after) {
		left = append(left, fmt.Sprintf("host interfaces %v, were %v", after, before))
	}
	if len(left) > 0 {
		return fmt.Errorf("host not restored: %s", strings.Join(left, "; "))
	}
	fmt.Println("node-smoke: host as before: interfaces, sysctls, no namespace, mount or cgroup left")
	return nil
}

func nsName(n *node.Node) string {
	p := n.NetnsPath()
	return p[strings.LastIndex(p, "/")+1:]
}

func interfaceNames() ([]string, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("host interfaces: %w", err)
	}
	names := make([]string, 0, len(ifs))
	for _, i := range ifs {
		names = append(names, i.Name)
	}
	slices.Sort(names)
	return names, nil
}

// rssKiB is a process's resident set size, 0 if it cannot be read.
func rssKiB(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kib int
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kib)
			return kib
		}
	}
	return 0
}

// checkCluster checks the StorageClass and its PVs exist, and that the
// kubernetes Service answers on its cluster IP from inside the namespace
// (kube-proxy's rules at work).
func checkCluster(n *node.Node) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := kubernetes.NewForConfig(n.Config)
	if err != nil {
		return err
	}
	if _, err := client.StorageV1().StorageClasses().Get(ctx, node.StorageClassName, metav1.GetOptions{}); err != nil {
		return fmt.Errorf("StorageClass: %w", err)
	}
	pvs, err := client.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("PVs: %w", err)
	}
	fmt.Printf("node-smoke: StorageClass %q with %d PVs\n", node.StorageClassName, len(pvs.Items))
	svc, err := client.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("kubernetes Service: %w", err)
	}
	addr := net.JoinHostPort(svc.Spec.ClusterIP, "443")
	start := time.Now()
	for {
		conn, err := n.Dial(addr)
		if err == nil {
			conn.Close()
			fmt.Printf("node-smoke: Service %s reached through kube-proxy after %s\n", addr, time.Since(start).Round(100*time.Millisecond))
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dial the kubernetes Service at %s: %w", addr, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
