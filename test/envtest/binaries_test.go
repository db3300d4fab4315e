package envtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// SETPOINT_BIN_DIR decides where the binaries are, for Start and for a
// test's skip decision alike.
func TestBinDirHonoursTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(BinDirEnv, dir)
	if _, err := BinDir(); !errors.Is(err, errNoBinaries) {
		t.Fatalf("BinDir with an empty %s = %v, want errNoBinaries", BinDirEnv, err)
	}
	for _, name := range binaryNames {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := BinDir()
	if err != nil || got != dir {
		t.Fatalf("BinDir = %q, %v; want %q", got, err, dir)
	}
}
