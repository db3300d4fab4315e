package testkit

import (
	"context"
	"io"
	"net"
	"strconv"
	"sync"

	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// HostMapForwarder stands in for the kubectl plugin's port-forward
// through the API server, which needs a kubelet the stand-in tiers do not
// have: it listens on loopback and relays to where the stand-in's host
// map says the Service's Postgres is. Services lists what it was asked
// for, "<namespace>/<service>:<port>".
type HostMapForwarder struct {
	Hosts *postgres.HostMap

	mu       sync.Mutex
	services []string
}

// Forward implements the plugin's Forwarder.
func (f *HostMapForwarder) Forward(_ context.Context, namespace, service string, port int) (int, func(), error) {
	p := strconv.Itoa(port)
	f.mu.Lock()
	f.services = append(f.services, namespace+"/"+service+":"+p)
	f.mu.Unlock()
	to, err := f.Hosts.Resolve(service + "." + namespace + ".svc:" + p)
	if err != nil {
		return 0, nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, nil, err
	}
	go relay(l, to)
	return l.Addr().(*net.TCPAddr).Port, func() { l.Close() }, nil
}

// Services are the Services Forward was asked for, in order.
func (f *HostMapForwarder) Services() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.services...)
}

func relay(l net.Listener, to string) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			s, err := net.Dial("tcp", to)
			if err != nil {
				return
			}
			defer s.Close()
			go func() { _, _ = io.Copy(s, c) }()
			_, _ = io.Copy(c, s)
		}()
	}
}
