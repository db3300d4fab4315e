package testkit

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The app counts each attempt's outcome, keeps the last error, and stops.
func TestAppCountsOutcomes(t *testing.T) {
	n := 0
	boom := errors.New("refused")
	reached := make(chan struct{})
	app := StartApp(t.Context(), time.Millisecond, func(context.Context) error {
		n++
		switch {
		case n == 2:
			return boom
		case n == 5:
			close(reached)
		}
		return nil
	})
	select {
	case <-reached:
	case <-time.After(10 * time.Second):
		t.Fatal("five attempts not made within 10 s")
	}
	app.Stop()
	app.Stop()
	if app.Failed() != 1 || !errors.Is(app.LastErr(), boom) || app.OK() < 4 {
		t.Fatalf("ok %d, failed %d, last %v", app.OK(), app.Failed(), app.LastErr())
	}
}
