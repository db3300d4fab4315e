package cnpgsim

import (
	"os"
	"path/filepath"
	"testing"
)

// The FATAL that ended recovery is the one reported, even when a client
// turned away while the server was in recovery logged one after it.
func TestLastFatalSkipsConnectionRefusals(t *testing.T) {
	dir := t.TempDir()
	log := `2026-12-07 03:37:40 UTC [100] LOG:  starting point-in-time recovery
2026-12-07 03:37:41 UTC [101] FATAL:  recovery ended before configured recovery target was reached
2026-12-07 03:37:41 UTC [102] FATAL:  the database system is in recovery mode
2026-12-07 03:37:41 UTC [103] FATAL:  the database system is shutting down
2026-12-07 03:37:41 UTC [100] LOG:  database system is shut down
`
	if err := os.WriteFile(filepath.Join(dir, "postgres.log"), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := (&server{dir: dir}).lastFatal(); got != "recovery ended before configured recovery target was reached" {
		t.Errorf("lastFatal = %q", got)
	}
}
