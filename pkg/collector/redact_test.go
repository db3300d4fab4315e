package collector

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestRedactKeepsPasswordsOutOfErrors(t *testing.T) {
	const password = "s3cr3t-Pa55"
	err := fmt.Errorf("read health: %w", errors.New("server said: bad option "+password+" near "+password))
	got := redact(err, password)
	if strings.Contains(got.Error(), password) {
		t.Fatalf("redacted error still holds the password: %q", got)
	}
	if want := "read health: server said: bad option [redacted] near [redacted]"; got.Error() != want {
		t.Errorf("redacted error = %q, want %q", got, want)
	}
	plain := errors.New("connection refused")
	if redact(plain, password) != plain {
		t.Error("an error without the password was rewritten")
	}
	if redact(nil, password) != nil {
		t.Error("no error became one")
	}
	if redact(plain, "") != plain {
		t.Error("an empty password rewrote an error")
	}
}
