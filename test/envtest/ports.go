package envtest

import (
	"fmt"
	"net"
)

// freePorts asks the kernel for n distinct unused loopback ports. They are
// free when returned; a race with another process is possible but rare
// enough for tests, and start-up then fails with the process's log.
func freePorts(n int) ([]int, error) {
	// Hold every listener until all are chosen, so the ports are distinct.
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
