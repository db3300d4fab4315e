package envtest

import (
	"context"
	"net"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
)

// The building blocks below are exported for test/node, the real one-node
// Kubernetes, which runs its commands, crosses its network namespace and
// issues its certificates the way an Environment does.

// Process is a command a harness runs: its output goes to <logDir>/<name>.log,
// it dies with the test binary, and Stop ends its process group.
type Process struct{ p *process }

// NewProcess prepares path with args; name names the log file and errors.
func NewProcess(name, path, logDir string, args ...string) *Process {
	return &Process{p: &process{
		name:    name,
		path:    path,
		args:    args,
		logFile: filepath.Join(logDir, name+".log"),
	}}
}

// Name is the name given to NewProcess.
func (p *Process) Name() string { return p.p.name }

// Pid is the process's id, 0 before Start.
func (p *Process) Pid() int {
	if p.p.cmd == nil || p.p.cmd.Process == nil {
		return 0
	}
	return p.p.cmd.Process.Pid
}

// Start launches the command.
func (p *Process) Start() error { return p.p.start() }

// Stop sends SIGTERM to the process group, SIGKILL after grace, and reaps it.
func (p *Process) Stop(grace time.Duration) { p.p.stop(grace) }

// Exited reports whether the process has ended (or never started).
func (p *Process) Exited() bool { return p.p.exited() }

// Tail is the end of the process's log, for error messages.
func (p *Process) Tail() string { return p.p.tail() }

// WaitFor polls check until it succeeds, the process exits, or ctx ends.
func (p *Process) WaitFor(ctx context.Context, what string, check func(context.Context) error) error {
	return p.p.waitFor(ctx, what, check)
}

// WaitReadyz polls the API server's /readyz through cfg until it answers
// 200, p (the API server) exits, or ctx ends.
func WaitReadyz(ctx context.Context, p *Process, cfg *rest.Config) error {
	return waitReadyz(ctx, p.p, cfg)
}

// Netns is a network namespace held by one locked OS thread: listeners
// opened and connections dialled through it live in that namespace.
type Netns struct{ n *netns }

// JoinNetns enters the namespace bound at path (as `ip netns add` makes
// one, under /run/netns) on a fresh thread.
func JoinNetns(path string) (*Netns, error) {
	n, err := newNetnsEntering(func() error { return setns(path) })
	if err != nil {
		return nil, err
	}
	return &Netns{n: n}, nil
}

// Listen opens a TCP listener on addr inside the namespace.
func (n *Netns) Listen(addr string) (net.Listener, error) { return n.n.listen(addr) }

// Dial connects to addr inside the namespace.
func (n *Netns) Dial(addr string) (net.Conn, error) { return n.n.dial(addr) }

// Close ends the namespace's thread.
func (n *Netns) Close() { n.n.close() }

// Bridge serves l until the returned func is called, joining every
// accepted connection to one that dial opens: a loopback port on the host
// that reaches an address inside a namespace.
func Bridge(l net.Listener, dial func() (net.Conn, error)) (closeBridge func()) {
	return startBridge(l, dial).close
}

// APIServerPKI is what a kube-apiserver needs, as an Environment makes it: a
// CA (which signs further certificates, a node's say), a serving
// certificate, the service-account key pair and a token file holding
// AdminToken for an admin in system:masters.
type APIServerPKI struct {
	CA                   *CA
	CertFile, KeyFile    string
	SAKeyFile, SAPubFile string
	TokenFile            string
	AdminToken           string
}

// NewAPIServerPKI writes the files into dir, the serving certificate for
// ips and dnsNames.
func NewAPIServerPKI(dir string, ips []net.IP, dnsNames []string) (*APIServerPKI, error) {
	p, err := newPKIFor(dir, ips, dnsNames)
	if err != nil {
		return nil, err
	}
	return &APIServerPKI{
		CA: p.ca, CertFile: p.certFile, KeyFile: p.keyFile,
		SAKeyFile: p.saKeyFile, SAPubFile: p.saPubFile,
		TokenFile: p.tokenFile, AdminToken: p.adminToken,
	}, nil
}
