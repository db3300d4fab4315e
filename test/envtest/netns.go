package envtest

import (
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"syscall"
	"time"
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
func newNetns() (*netns, error) {
	n := &netns{calls: make(chan func()), quit: make(chan struct{})}
	ready := make(chan error, 1)
	go n.run(ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return n, nil
}

// run never unlocks the thread: it is in another namespace, so when run
// returns the Go runtime ends the thread instead of reusing it, and the
// processes started from it get their parent-death signal.
func (n *netns) run(ready chan<- error) {
	runtime.LockOSThread()
	if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
		ready <- fmt.Errorf("unshare network namespace (envtest runs as root): %w", err)
		return
	}
	// A child forked from this thread inherits its namespace.
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		ready <- fmt.Errorf("ip link set lo up in the private namespace: %w: %s", err, out)
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
