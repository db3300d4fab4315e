package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/test/envtest"
)

// Options tune a Node.
type Options struct {
	// BinDir holds etcd, kube-apiserver, kube-controller-manager,
	// kube-scheduler, kube-proxy and kubelet. Defaults to envtest.BinDir's answer.
	BinDir string
	// Name is the Node's name. Defaults to "setpoint-node".
	Name string
	// StartTimeout bounds start-up, up to the Node being Ready.
	StartTimeout time.Duration
	// KeepDir leaves the state directory (logs, configurations) after Stop.
	KeepDir bool
	// CallerStops: the caller handles SIGINT, SIGTERM and SIGHUP and calls
	// Stop itself (the demo, which ends with status 0 on Ctrl-C). Without
	// it the node stops itself on those signals and exits the process.
	CallerStops bool
	// Storage tunes the static local PVs of StorageClass "local".
	Storage Storage
	// Images are imported into containerd before kubelet starts. With
	// them the node's Pod sandboxes use images["pause"] and CoreDNS
	// (images["coredns"]) runs before Start returns; without them the
	// node is Ready but runs no Pod.
	Images Images
}

// Node is a running one-node Kubernetes.
type Node struct {
	// Config is an admin (system:masters) client configuration that works
	// from the host, through a loopback bridge into the namespace.
	Config *rest.Config
	// KubeconfigPath is a kubeconfig file for Config.
	KubeconfigPath string
	// Name is the Node's name.
	Name string

	dir             string
	keepDir         bool
	binDir          string
	images          Images
	ns              *namedNetns
	join            *envtest.Netns
	closeBridge     func()
	pki             *nodePKI
	innerKubeconfig string
	sysctls         savedSysctls
	record          *record // what a later Start gives back if this process dies
	cgroups         *cgroups
	containerd      *containerd
	procs           []*envtest.Process // in start order
	stopSignals     func()
	stopStorage     func()

	hostLock *os.File // held from Start to the end of Stop

	stopMu  sync.Mutex
	stopped bool
	errs    []error
}

// Start brings the node up and returns once the Node is Ready and its
// StorageClass and PVs exist. On error
// everything started so far is stopped and the host given back.
func Start(ctx context.Context, opts Options) (n *Node, err error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 3 * time.Minute
	}
	if opts.Name == "" {
		opts.Name = "setpoint-node"
	}
	// The wait for another node is not part of the start's timeout.
	lock, err := lockHost(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	n = &Node{Name: opts.Name, binDir: opts.BinDir, keepDir: opts.KeepDir, images: opts.Images, hostLock: lock}
	if n.binDir == "" {
		if n.binDir, err = envtest.BinDir(); err != nil {
			lock.Close()
			return nil, err
		}
	}
	if err := CheckBinaries(n.binDir); err != nil {
		lock.Close()
		return nil, err
	}
	if err := sweepLeftovers(); err != nil {
		lock.Close()
		return nil, err
	}
	if n.dir, err = os.MkdirTemp("", "setpoint-node-"); err != nil {
		return nil, fmt.Errorf("create state dir: %w", err)
	}
	if !opts.CallerStops {
		n.stopSignals = stopOnSignal(n)
	}
	defer func() {
		if err != nil {
			if serr := n.Stop(); serr != nil {
				err = errors.Join(err, serr)
			}
			n = nil
		}
	}()
	if err = n.prepareHost(); err != nil {
		return n, err
	}
	if err = n.startControlPlane(ctx); err != nil {
		return n, err
	}
	if err = n.startRuntime(ctx); err != nil {
		return n, err
	}
	if err = n.waitNodeReady(ctx); err != nil {
		return n, err
	}
	if err = n.startStorage(ctx, opts.Storage); err != nil {
		return n, err
	}
	if dns, ok := n.images["coredns"]; ok {
		err = n.startDNS(ctx, dns.Ref)
	}
	return n, err
}

// prepareHost makes the namespace, the host's bridge into it, the
// certificates and kubeconfigs, and kubelet's cgroup root; it saves the
// sysctls kubelet will change.
func (n *Node) prepareHost() (err error) {
	if n.sysctls, err = saveSysctls(); err != nil {
		return err
	}
	name := "setpoint-node-" + strconv.Itoa(os.Getpid())
	n.record = &record{Pid: os.Getpid(), Dir: n.dir, Netns: name, Cgroup: "/" + name, Sysctls: n.sysctls,
		MadeDirs: missingHostDirs()}
	if err = n.record.write(); err != nil {
		return err
	}
	if n.ns, err = createNetns(name); err != nil {
		return err
	}
	if n.join, err = envtest.JoinNetns(n.ns.Path); err != nil {
		return err
	}
	if err = n.openBridge(); err != nil {
		return err
	}
	if n.pki, err = newNodePKI(n.dir, n.Name); err != nil {
		return err
	}
	n.Config = &rest.Config{
		Host:            n.Config.Host,
		BearerToken:     n.pki.AdminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: n.pki.CA.PEM},
		QPS:             100,
		Burst:           200,
	}
	if n.KubeconfigPath, err = writeKubeconfig(n.dir, "kubeconfig", n.Config.Host, n.pki.CA.PEM, n.pki.AdminToken, "", ""); err != nil {
		return err
	}
	if n.innerKubeconfig, err = writeKubeconfig(n.dir, "kubeconfig-inner", innerAPIURL, n.pki.CA.PEM, n.pki.AdminToken, "", ""); err != nil {
		return err
	}
	n.cgroups, err = makeCgroups(n.record.Cgroup)
	return err
}

// openBridge listens on a host loopback port and joins each connection to
// the API server inside the namespace.
func (n *Node) openBridge() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen for the API server bridge: %w", err)
	}
	n.closeBridge = envtest.Bridge(l, func() (net.Conn, error) {
		return n.join.Dial("127.0.0.1:" + apiServerPort)
	})
	n.Config = &rest.Config{Host: "https://" + l.Addr().String()}
	return nil
}

// startRuntime writes the CNI configuration, starts containerd, kube-proxy
// and kubelet.
func (n *Node) startRuntime(ctx context.Context) error {
	cniDir, err := writeCNIConfig(n.dir)
	if err != nil {
		return err
	}
	sandbox := defaultSandboxImage
	if pause, ok := n.images["pause"]; ok {
		sandbox = pause.Ref
	}
	n.containerd = newContainerd(n.dir, sandbox)
	cfg, err := n.containerd.writeConfig(cniDir)
	if err != nil {
		return err
	}
	path, argv := n.ns.nsenter("containerd", "--config", cfg, "--log-level", "warn")
	ctrd := envtest.NewProcess("containerd", path, n.dir, argv...)
	if err := n.run(ctrd); err != nil {
		return err
	}
	if err := ctrd.WaitFor(ctx, "its socket", n.containerd.dialable); err != nil {
		return err
	}
	if err := n.importImages(n.images); err != nil {
		return err
	}
	nodeKubeconfig, err := writeKubeconfig(n.dir, "kubeconfig-node", innerAPIURL, n.pki.CA.PEM, "", n.pki.nodeCert, n.pki.nodeKey)
	if err != nil {
		return err
	}
	proxyArgs, err := n.proxyArgs()
	if err != nil {
		return err
	}
	if err := n.run(n.inNetns("kube-proxy", proxyArgs...)); err != nil {
		return err
	}
	args, err := n.kubeletArgs(nodeKubeconfig)
	if err != nil {
		return err
	}
	// Last: waitNodeReady waits on the last process started.
	return n.run(n.inNetns("kubelet", args...))
}

// run starts p and records it for Stop.
func (n *Node) run(p *envtest.Process) error {
	if err := p.Start(); err != nil {
		return err
	}
	n.procs = append(n.procs, p)
	return nil
}

// Dir is the node's state directory: logs, configurations, data.
func (n *Node) Dir() string { return n.dir }

// NetnsPath is the node's network namespace, for code that must reach
// Services or Pod IPs from inside (envtest.JoinNetns).
func (n *Node) NetnsPath() string { return n.ns.Path }

// CheckBinaries reports the first node binary missing in dir.
func CheckBinaries(dir string) error {
	for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy", "kubelet"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("node binary %s missing in %s: run `make node`", name, dir)
		}
	}
	return nil
}

// Processes maps the name of each process the node started to its PID.
func (n *Node) Processes() map[string]int {
	pids := map[string]int{}
	for _, p := range n.procs {
		pids[p.Name()] = p.Pid()
	}
	return pids
}

// Dial connects to addr (a Service's cluster IP, a Pod's IP, the node's
// IP) from inside the node's namespace; the host has no route there.
func (n *Node) Dial(addr string) (net.Conn, error) { return n.join.Dial(addr) }
