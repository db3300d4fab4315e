package envtest

import (
	"errors"
	"io"
	"net"
	"sync"
)

// bridge accepts connections on one side of a network-namespace boundary
// and joins each to a fresh connection dialled on the other side, so that a
// loopback port in one namespace reaches a loopback port in the other.
type bridge struct {
	l    net.Listener
	dial func() (net.Conn, error)
	wg   sync.WaitGroup
	mu   sync.Mutex
	open map[net.Conn]struct{}
}

// startBridge serves l until close, joining every accepted connection to
// one that dial opens.
func startBridge(l net.Listener, dial func() (net.Conn, error)) *bridge {
	b := &bridge{l: l, dial: dial, open: map[net.Conn]struct{}{}}
	b.wg.Add(1)
	go b.serve()
	return b
}

func (b *bridge) serve() {
	defer b.wg.Done()
	for {
		c, err := b.l.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		} else if err != nil {
			continue
		}
		b.wg.Add(1)
		go b.join(c)
	}
}

// join copies both ways until either side closes; a failed dial closes the
// accepted connection, which the client sees as a refused request.
func (b *bridge) join(in net.Conn) {
	defer b.wg.Done()
	out, err := b.dial()
	if err != nil {
		in.Close()
		return
	}
	if !b.track(in, out) {
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(out, in)
	go pipe(in, out)
	<-done
	in.Close()
	out.Close()
	<-done
	b.untrack(in, out)
}

func (b *bridge) track(conns ...net.Conn) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open == nil {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		b.open[c] = struct{}{}
	}
	return true
}

func (b *bridge) untrack(conns ...net.Conn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range conns {
		delete(b.open, c)
	}
}

// close stops accepting, cuts every open connection and waits for the
// copies to end.
func (b *bridge) close() {
	b.l.Close()
	b.mu.Lock()
	for c := range b.open {
		c.Close()
	}
	b.open = nil
	b.mu.Unlock()
	b.wg.Wait()
}
