package throttle

import (
	"container/list"
	"context"
	"sync"
	"time"

	"k8s.io/client-go/util/flowcontrol"
)

// Limiter is a token bucket of qps tokens per second holding up to burst,
// as flowcontrol.NewTokenBucketRateLimiter; waiters are served urgent
// first, then in arrival order. It implements flowcontrol.RateLimiter, so
// it goes in rest.Config.RateLimiter.
type Limiter struct {
	qps   float64
	burst float64
	clock timers

	mu      sync.Mutex
	tokens  float64
	last    time.Time
	queues  [2]*list.List // of *waiter: [0] urgent, [1] the rest
	armed   bool          // a tick is due while anyone waits
	stopped bool
}

type waiter struct {
	granted chan struct{}
}

var _ flowcontrol.RateLimiter = (*Limiter)(nil)

// timers is the clock a Limiter reads and sets its ticks on.
type timers interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func())
}

type realClock struct{}

func (realClock) Now() time.Time                      { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) { time.AfterFunc(d, f) }

// New returns a full bucket; qps must be positive.
func New(qps float32, burst int) *Limiter {
	return newWithClock(qps, burst, realClock{})
}

func newWithClock(qps float32, burst int, c timers) *Limiter {
	return &Limiter{qps: float64(qps), burst: float64(burst), clock: c, tokens: float64(burst),
		last: c.Now(), queues: [2]*list.List{list.New(), list.New()}}
}

// QPS is the rate tokens come at.
func (l *Limiter) QPS() float32 { return float32(l.qps) }

// Stop makes TryAccept refuse from now on; waiters still get their tokens.
func (l *Limiter) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
}

// TryAccept takes a token if one is there and nobody waits for it.
func (l *Limiter) TryAccept() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped || l.waiting() > 0 {
		return false
	}
	return l.take()
}

// Accept returns once a token is taken.
func (l *Limiter) Accept() { _ = l.Wait(context.Background()) }

// Wait returns nil once a token is taken for the request ctx belongs to,
// or ctx's error if it ends first.
func (l *Limiter) Wait(ctx context.Context) error {
	class := 1
	if isUrgent(ctx) {
		class = 0
	}
	l.mu.Lock()
	// Nobody this request must let go first: take a token if there is one.
	if l.ahead(class) == 0 && l.take() {
		l.mu.Unlock()
		return nil
	}
	w := &waiter{granted: make(chan struct{})}
	e := l.queues[class].PushBack(w)
	l.arm()
	l.mu.Unlock()

	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		select {
		case <-w.granted:
			// Granted as ctx ended: give the token back to the others.
			l.tokens++
			l.grant()
		default:
			l.queues[class].Remove(e)
		}
		return ctx.Err()
	}
}

// refill adds the tokens that came since the last look. Callers hold mu.
func (l *Limiter) refill() {
	now := l.clock.Now()
	l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.qps)
	l.last = now
}

// epsilon absorbs the rounding of tokens summed from float seconds: 0.2 s
// at 10 qps must make two tokens, not 1.9999999999999998.
const epsilon = 1e-9

// take refills the bucket and takes one token. Callers hold mu.
func (l *Limiter) take() bool {
	l.refill()
	if l.tokens < 1-epsilon {
		return false
	}
	l.tokens--
	return true
}

// waiting counts the waiters; ahead those a request of class must let go
// first (urgent ones let only urgent ones go first).
func (l *Limiter) waiting() int { return l.queues[0].Len() + l.queues[1].Len() }

func (l *Limiter) ahead(class int) int {
	if class == 0 {
		return l.queues[0].Len()
	}
	return l.waiting()
}

// grant hands the tokens there are to the waiters in order. Callers hold mu.
func (l *Limiter) grant() {
	for _, q := range l.queues {
		for q.Len() > 0 && l.take() {
			close(q.Remove(q.Front()).(*waiter).granted)
		}
	}
}

// arm makes sure a timer fires when the next token is due, if anyone
// waits. Callers hold mu.
func (l *Limiter) arm() {
	if l.armed || l.waiting() == 0 {
		return
	}
	l.refill()
	due := time.Duration((1 - l.tokens) / l.qps * float64(time.Second))
	l.armed = true
	l.clock.AfterFunc(max(due, time.Millisecond), l.tick)
}

func (l *Limiter) tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed = false
	l.grant()
	l.arm()
}
