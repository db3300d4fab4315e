// Command pause is the pause image's program: the process that holds a
// Pod's namespaces. It sleeps until SIGTERM or SIGINT and, as PID 1 of a
// Pod sharing its process namespace, reaps the zombies orphans leave.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		reap()
	}
}

// reap collects every exited child: signals coalesce, so one SIGCHLD may
// stand for many exits.
func reap() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
