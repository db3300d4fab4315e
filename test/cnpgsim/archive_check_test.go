package cnpgsim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runArchive runs a's archive_command for one file as Postgres does: in
// the data directory, through the shell, %p and %f substituted.
func runArchive(t *testing.T, a *archive, dataDir, name string) (string, error) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dataDir, name), []byte("wal "+name), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.stateDir, archiveScriptFile), []byte(a.archiveScript()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := strings.NewReplacer("%p", name, "%f", name).Replace(a.archiveCommand())
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Dir = dataDir
	out, err := c.CombinedOutput()
	return string(out), err
}

// A new server's first WAL goes only into an empty folder; once it has
// archived, more files follow; a server without the mark (archiving
// before) is not checked.
func TestNewServerRefusesANonEmptyArchive(t *testing.T) {
	root := t.TempDir()
	a := &archive{serverName: "shop", dir: filepath.Join(root, "store", "shop"), stateDir: root}
	if err := os.MkdirAll(a.walDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(data, emptyArchiveCheck)
	if err := os.WriteFile(filepath.Join(a.walDir(), "000000010000000000000001"), []byte("earlier server"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runArchive(t, a, data, "00000002.history")
	if err == nil || !strings.Contains(out, "Expected empty archive") {
		t.Fatalf("a new server archived into a folder holding WAL: err %v, output %q", err, out)
	}
	if _, err := os.Stat(filepath.Join(a.walDir(), "00000002.history")); !os.IsNotExist(err) {
		t.Fatalf("refused file was copied (%v)", err)
	}

	// An empty folder passes, and the mark goes with the first file.
	if err := os.Remove(filepath.Join(a.walDir(), "000000010000000000000001")); err != nil {
		t.Fatal(err)
	}
	if out, err := runArchive(t, a, data, "00000002.history"); err != nil {
		t.Fatalf("first archive into an empty folder: %v %s", err, out)
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Fatalf("mark still there after the first archive (%v)", err)
	}
	if out, err := runArchive(t, a, data, "000000020000000000000003"); err != nil {
		t.Fatalf("second archive: %v %s", err, out)
	}
}

// Postgres truncates the expanded archive_command at 1023 bytes: deep
// folders and long server names must still fit (they are in the script
// it runs).
func TestArchiveCommandFitsPostgresLimit(t *testing.T) {
	a := &archive{serverName: strings.Repeat("s", 63), dir: "/" + strings.Repeat("d/", 120) + strings.Repeat("s", 63),
		stateDir: "/" + strings.Repeat("t/", 60) + "ns-" + strings.Repeat("c", 50)}
	name := "000000010000000000000003.00000028.backup"
	cmd := strings.NewReplacer("%p", "pg_wal/"+name, "%f", name).Replace(a.archiveCommand())
	if len(cmd) > 1023 {
		t.Fatalf("expanded archive_command has %d bytes", len(cmd))
	}
}

// Each run leaves its outcome for the stand-in: "ok", or why it failed.
// While the store refuses, nothing is copied and the refusal is the
// outcome; once it accepts again, the same file goes in.
func TestArchiveCommandReportsEachOutcome(t *testing.T) {
	root := t.TempDir()
	a := &archive{serverName: "shop", dir: filepath.Join(root, "store", "shop"), stateDir: root}
	data := filepath.Join(root, "data")
	for _, d := range []string{a.walDir(), data} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	outcome := func() string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, archiveOutcomeFile))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	const name = "000000010000000000000001"
	if out, err := runArchive(t, a, data, name); err != nil || outcome() != "ok" {
		t.Fatalf("archive: %v %s; outcome %q, want ok", err, out, outcome())
	}

	const refusal = "rpc error: code = Unknown desc = missing key ACCESS_KEY_ID, inside secret backup-creds"
	if err := os.WriteFile(filepath.Join(root, archiveRefusalFile), []byte(refusal+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const next = "000000010000000000000002"
	out, err := runArchive(t, a, data, next)
	if err == nil || !strings.Contains(out, refusal) || outcome() != refusal {
		t.Fatalf("refused store: err %v, output %q, outcome %q; want a failure with the refusal", err, out, outcome())
	}
	if _, err := os.Stat(filepath.Join(a.walDir(), next)); !os.IsNotExist(err) {
		t.Fatalf("a refused file was copied (%v)", err)
	}

	if err := os.Remove(filepath.Join(root, archiveRefusalFile)); err != nil {
		t.Fatal(err)
	}
	if out, err := runArchive(t, a, data, next); err != nil || outcome() != "ok" {
		t.Fatalf("store accepts again: %v %s; outcome %q, want ok", err, out, outcome())
	}
}
