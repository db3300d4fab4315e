package throttle

import (
	"context"
	"sync"
	"testing"
	"time"
)

// manualClock moves only when told; due callbacks run outside its lock,
// as time.AfterFunc's run on their own goroutine.
type manualClock struct {
	mu    sync.Mutex
	now   time.Time
	ticks []tick
}

type tick struct {
	at time.Time
	f  func()
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) AfterFunc(d time.Duration, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ticks = append(c.ticks, tick{c.now.Add(d), f})
}

func (c *manualClock) step(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	kept := c.ticks[:0]
	for _, t := range c.ticks {
		if t.at.After(c.now) {
			kept = append(kept, t)
		} else {
			due = append(due, t.f)
		}
	}
	c.ticks = kept
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// waitFor starts a Wait and returns a channel closed when it returns,
// after the waiter is queued.
func waitFor(t *testing.T, l *Limiter, ctx context.Context, order *[]string, mu *sync.Mutex, name string) chan error {
	t.Helper()
	queued := l.queued()
	done := make(chan error, 1)
	go func() {
		err := l.Wait(ctx)
		mu.Lock()
		*order = append(*order, name)
		mu.Unlock()
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for l.queued() == queued {
		if time.Now().After(deadline) {
			t.Fatalf("%s never queued", name)
		}
		time.Sleep(time.Millisecond)
	}
	return done
}

func (l *Limiter) queued() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting()
}

func newTestLimiter(qps float32, burst int) (*Limiter, *manualClock) {
	c := &manualClock{now: time.Unix(1000, 0)}
	return newWithClock(qps, burst, c), c
}

// The bucket works as client-go's: a full burst at once, then qps.
func TestBurstThenRate(t *testing.T) {
	l, c := newTestLimiter(10, 3)
	for i := range 3 {
		if !l.TryAccept() {
			t.Fatalf("token %d of the burst refused", i)
		}
	}
	if l.TryAccept() {
		t.Fatal("a fourth token with the bucket empty")
	}
	c.step(99 * time.Millisecond)
	if l.TryAccept() {
		t.Fatal("a token before 1/qps passed")
	}
	c.step(time.Millisecond)
	if !l.TryAccept() {
		t.Fatal("no token after 1/qps")
	}
	c.step(time.Hour)
	for i := range 3 {
		if !l.TryAccept() {
			t.Fatalf("after a long idle, token %d of the burst refused", i)
		}
	}
	if l.TryAccept() {
		t.Fatal("more than the burst after a long idle")
	}
}

// Urgent waiters get the next tokens before those that came earlier; the
// rate is the same.
func TestUrgentServedFirst(t *testing.T) {
	l, c := newTestLimiter(10, 1)
	if !l.TryAccept() {
		t.Fatal("burst refused")
	}
	var mu sync.Mutex
	var order []string
	bg := context.Background()
	n1 := waitFor(t, l, bg, &order, &mu, "n1")
	n2 := waitFor(t, l, bg, &order, &mu, "n2")
	u := waitFor(t, l, Urgent(bg), &order, &mu, "u")
	if l.TryAccept() {
		t.Fatal("TryAccept jumped the queue")
	}

	c.step(100 * time.Millisecond)
	if err := <-u; err != nil {
		t.Fatal(err)
	}
	c.step(100 * time.Millisecond)
	<-n1
	c.step(100 * time.Millisecond)
	<-n2
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"u", "n1", "n2"}; !equal(order, want) {
		t.Errorf("served %v, want %v", order, want)
	}
}

// Three waiters and 1/qps passed: one token, one waiter served.
func TestOneTokenOneWaiter(t *testing.T) {
	l, c := newTestLimiter(10, 1)
	l.Accept()
	var mu sync.Mutex
	var order []string
	done := []chan error{
		waitFor(t, l, context.Background(), &order, &mu, "a"),
		waitFor(t, l, context.Background(), &order, &mu, "b"),
		waitFor(t, l, context.Background(), &order, &mu, "c"),
	}
	c.step(100 * time.Millisecond)
	<-done[0]
	if q := l.queued(); q != 2 {
		t.Errorf("%d waiting after one token, want 2", q)
	}
	c.step(100 * time.Millisecond)
	<-done[1]
	c.step(100 * time.Millisecond)
	<-done[2]
}

// A waiter whose context ends leaves the queue; the token goes to the next.
func TestCancelledWaiterLeaves(t *testing.T) {
	l, c := newTestLimiter(10, 1)
	l.Accept()
	var mu sync.Mutex
	var order []string
	ctx, cancel := context.WithCancel(context.Background())
	gone := waitFor(t, l, ctx, &order, &mu, "gone")
	next := waitFor(t, l, context.Background(), &order, &mu, "next")
	cancel()
	if err := <-gone; err != context.Canceled {
		t.Fatalf("cancelled wait returned %v", err)
	}
	if q := l.queued(); q != 1 {
		t.Fatalf("%d waiting after the cancel, want 1", q)
	}
	c.step(100 * time.Millisecond)
	if err := <-next; err != nil {
		t.Fatal(err)
	}
}

func TestQPS(t *testing.T) {
	if q := New(50, 100).QPS(); q != 50 {
		t.Errorf("QPS %v", q)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
