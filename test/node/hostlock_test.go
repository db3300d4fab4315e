package node

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A second lockHost waits while the first holds the lock, gives up when
// its context ends, and gets the lock once the first is closed.
func TestHostLockHoldsOneNodeAtATime(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	first, err := lockHost(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	if second, err := lockHost(ctx); !errors.Is(err, context.DeadlineExceeded) {
		if second != nil {
			second.Close()
		}
		t.Fatalf("second lock while the first is held: %v, want the deadline", err)
	}
	first.Close()
	second, err := lockHost(t.Context())
	if err != nil {
		t.Fatalf("lock after the first was released: %v", err)
	}
	second.Close()
}
