package envtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// netns is a private network namespace, as `unshare -n` makes one, held by
// one goroutine locked to its OS thread. Sockets opened and processes
// started through do live in it: their loopback is their own, so a server
// there that binds every interface is reachable only through the bridges
// the environment opens, and parallel test packages never clash on a port.
type netns struct {
	calls chan func()
	quit  chan struct{}
}

// newNetns creates the namespace on a fresh locked thread and brings its
// loopback interface up.
func newNetns() (*netns, error) { return newNetnsEntering(unshareNetns) }

// newNetnsEntering runs enter on a fresh locked thread, which then serves
// the namespace enter moved it into.
func newNetnsEntering(enter func() error) (*netns, error) {
	n := &netns{calls: make(chan func()), quit: make(chan struct{})}
	ready := make(chan error, 1)
	go n.run(enter, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return n, nil
}

// unshareNetns moves the calling thread into a new network namespace with
// its loopback interface up.
func unshareNetns() error {
	if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
		return fmt.Errorf("unshare network namespace (envtest runs as root): %w", err)
	}
	// A child forked from this thread inherits its namespace.
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link set lo up in the private namespace: %w: %s", err, out)
	}
	return nil
}

// setns moves the calling thread into the network namespace bound at path.
func setns(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open network namespace: %w", err)
	}
	defer f.Close()
	if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("setns %s: %w", path, err)
	}
	return nil
}

// run never unlocks the thread: it is in another namespace, so when run
// returns the Go runtime ends the thread instead of reusing it, and the
// processes started from it get their parent-death signal.
func (n *netns) run(enter func() error, ready chan<- error) {
	runtime.LockOSThread()
	if err := enter(); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for {
		select {
		case f := <-n.calls:
			f()
		case <-n.quit:
			return
		}
	}
}

// do runs f on the namespace's thread and waits for it.
func (n *netns) do(f func()) {
	done := make(chan struct{})
	select {
	case n.calls <- func() { f(); close(done) }:
		<-done
	case <-n.quit:
	}
}

// listen opens a TCP listener on addr inside the namespace.
func (n *netns) listen(addr string) (l net.Listener, err error) {
	n.do(func() { l, err = net.Listen("tcp", addr) })
	if l == nil && err == nil {
		err = fmt.Errorf("network namespace closed")
	}
	return l, err
}

// dial connects to addr inside the namespace.
func (n *netns) dial(addr string) (c net.Conn, err error) {
	n.do(func() { c, err = net.DialTimeout("tcp", addr, 5*time.Second) })
	if c == nil && err == nil {
		err = fmt.Errorf("network namespace closed")
	}
	return c, err
}

// close ends the namespace's thread; call it after stopping the processes
// started in it.
func (n *netns) close() {
	select {
	case <-n.quit:
	default:
		close(n.quit)
	}
}
