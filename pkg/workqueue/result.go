package workqueue

import (
	"errors"
	"time"
)

// Result is the outcome of a pass that returned no error.
type Result struct {
	// RequeueAfter, when positive, asks for another pass after this long:
	// an expected wait, such as CNPG still provisioning, or, with Failed,
	// the slow recheck of a failure that may clear on its own.
	RequeueAfter time.Duration
	// Failed says the pass recorded the object as Failed in its status: it
	// waits for a change to the object (or the slow recheck above), and
	// the pass is counted and logged as a failure, not a success.
	Failed bool
}

// terminalError marks an error that retrying cannot fix, such as an invalid
// spec. It wraps the cause so errors.Is and errors.As still see it.
type terminalError struct{ err error }

func (e *terminalError) Error() string { return e.err.Error() }
func (e *terminalError) Unwrap() error { return e.err }

// Terminal marks err as permanent: the key is not retried until the object
// changes. A nil err stays nil.
func Terminal(err error) error {
	if err == nil {
		return nil
	}
	return &terminalError{err: err}
}

// IsTerminal reports whether err, or an error it wraps, is terminal.
func IsTerminal(err error) bool {
	var t *terminalError
	return errors.As(err, &t)
}
