package cnpgsim_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A new Cluster does not archive into a folder that already holds WAL (an
// earlier server's), as CNPG's barman-cloud-check-wal-archive refuses it:
// the server log says so, nothing is archived, the folder is untouched.
func TestNewClusterRefusesAnArchiveHoldingWAL(t *testing.T) {
	ns := newNamespace(t)
	const dest = "s3://backups/used-folder"
	newObjectStore(t, ns, "store", dest)
	folder := archiveDirFor(dest, "x-"+ns)
	earlier := filepath.Join(folder, "wals", "00000009.history")
	if err := os.MkdirAll(filepath.Dir(earlier), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(earlier, []byte("an earlier server's timeline\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	newCluster(t, ns, "late", archivedBy("store", "x-"+ns))
	waitHealthy(t, ns, "late")
	superExec(t, ns, "late", "CREATE TABLE t (x int)") // a segment with something in it
	superQuery[string](t, ns, "late", "postgres", "SELECT pg_walfile_name(pg_switch_wal())")
	want := "WAL archive check failed for server x-" + ns + ": Expected empty archive"
	eventually(t, 60*time.Second, "the archiver refused", func() error {
		logs, _ := filepath.Glob(filepath.Join(sim.Dir(), "*", "postgres.log"))
		for _, l := range logs {
			if b, err := os.ReadFile(l); err == nil && strings.Contains(string(b), want) {
				return nil
			}
		}
		return fmt.Errorf("no server log says %q", want)
	})
	if got := superQuery[string](t, ns, "late", "postgres", "SELECT coalesce(last_archived_wal, '') FROM pg_stat_archiver"); got != "" {
		t.Errorf("archived %s into a folder holding an earlier server's WAL", got)
	}
	entries, err := os.ReadDir(filepath.Dir(earlier))
	if err != nil || len(entries) != 1 {
		t.Fatalf("folder changed: %v %v", entries, err)
	}
}
