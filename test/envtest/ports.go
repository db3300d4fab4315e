package envtest

import (
	"fmt"

	"github.com/setpoint-dev/setpoint/test/freeport"
)

// freePorts picks n distinct loopback ports for the control plane's
// processes (see package freeport for why not port 0).
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		port, err := freeport.Take()
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		ports = append(ports, port)
	}
	return ports, nil
}
