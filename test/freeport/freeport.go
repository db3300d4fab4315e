// Package freeport hands out loopback TCP ports for servers that tests
// start as child processes, which must be told their port before they bind
// it.
//
// Asking the kernel for port 0 and closing the listener is racy twice
// over: the kernel hands the same ephemeral port to the next outgoing
// connection, and to the next caller in the same process (a Postgres
// server started by the stand-in, another test's operator). So ports come
// from below the kernel's ephemeral range, where no connection is ever
// given one implicitly, each at most once per process, and only when
// nothing listens there now. Another test binary doing the same starts at
// a different random offset.
package freeport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
)

// The range sits below Linux's default ephemeral range (32768–60999) and
// above the ports daemons usually take.
const (
	first = 15000
	last  = 32000
)

var (
	mu   sync.Mutex
	next = first + rand.IntN(last-first)
	used = map[int]bool{}
)

// Take returns a port nothing listens on, never handed out before by this
// process.
func Take() (int, error) {
	mu.Lock()
	defer mu.Unlock()
	for range last - first {
		port := next
		next++
		if next >= last {
			next = first
		}
		if used[port] {
			continue
		}
		used[port] = true
		if free(port) {
			return port, nil
		}
	}
	return 0, errors.New("no free loopback port left in this process's range")
}

// Addr is Take as a 127.0.0.1:port address.
func Addr() (string, error) {
	port, err := Take()
	if err != nil {
		return "", err
	}
	return "127.0.0.1:" + strconv.Itoa(port), nil
}

// free binds the port to see that nobody holds it.
func free(port int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
