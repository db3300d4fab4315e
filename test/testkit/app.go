package testkit

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// App is an application under test: it makes one attempt (a login, a
// write) every interval until stopped, and counts each outcome, so a test
// can assert that none failed across a disturbance (an upgrade, a CA
// move).
type App struct {
	ok, failed atomic.Int64
	lastErr    atomic.Value
	cancel     context.CancelFunc
	done       chan struct{}
}

// StartApp runs attempt every interval in its own goroutine. The caller
// stops it (t.Cleanup(app.Stop) at the least). An attempt's error while
// stopping is not counted.
func StartApp(ctx context.Context, interval time.Duration, attempt func(context.Context) error) *App {
	ctx, cancel := context.WithCancel(ctx)
	a := &App{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		for ctx.Err() == nil {
			if err := attempt(ctx); err != nil && ctx.Err() == nil {
				a.failed.Add(1)
				a.lastErr.Store(err)
			} else if err == nil {
				a.ok.Add(1)
			}
			select {
			case <-ctx.Done():
			case <-time.After(interval):
			}
		}
	}()
	return a
}

// OK and Failed count the attempts so far.
func (a *App) OK() int64     { return a.ok.Load() }
func (a *App) Failed() int64 { return a.failed.Load() }

// LastErr is the last failed attempt's error, nil when none failed.
func (a *App) LastErr() error {
	err, _ := a.lastErr.Load().(error)
	return err
}

// Stop ends the loop and waits for the attempt in hand. It may be called
// more than once.
func (a *App) Stop() {
	a.cancel()
	<-a.done
}

// WriteOnce is one attempt of an application that writes (StartApp): it
// opens a new session with open, writes a row into table writes and
// closes the session, all within timeout. Each tier opens the session its
// own way; what counts as one write is the same on both.
func WriteOnce(ctx context.Context, timeout time.Duration, open func(context.Context) (*pgx.Conn, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := open(ctx)
	if err != nil {
		return fmt.Errorf("log in: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "INSERT INTO writes DEFAULT VALUES"); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
