package node

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// stopOnSignal stops the node when the process gets SIGINT, SIGTERM or
// SIGHUP, then exits with status 1: the processes would die with the test
// binary anyway (parent-death signal), but the sysctls, the namespace, the
// mounts and the cgroups would stay. The returned func ends the watch.
func stopOnSignal(n *Node) (stop func()) {
	sigs := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(os.Stderr, "node: %v: stopping the node\n", sig)
			if err := n.Stop(); err != nil {
				fmt.Fprintf(os.Stderr, "node: stop: %v\n", err)
			}
			os.Exit(1)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
