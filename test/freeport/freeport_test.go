package freeport

import (
	"net"
	"strconv"
	"testing"
)

func TestTakeIsDistinctOutsideEphemeralRangeAndSkipsBoundPorts(t *testing.T) {
	seen := map[int]bool{}
	for range 200 {
		port, err := Take()
		if err != nil {
			t.Fatal(err)
		}
		if port < first || port >= last {
			t.Fatalf("port %d is outside [%d, %d)", port, first, last)
		}
		if seen[port] {
			t.Fatalf("port %d handed out twice", port)
		}
		seen[port] = true
	}

	// A port someone listens on is skipped even when it comes up next.
	held, err := Take()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(held))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	mu.Lock()
	next = held
	delete(used, held)
	mu.Unlock()
	port, err := Take()
	if err != nil {
		t.Fatal(err)
	}
	if port == held {
		t.Fatalf("Take handed out %d, which a listener holds", held)
	}
}
