package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCgroupMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		file, content string
		want          int64
		ok            bool
	}{
		{"sys/fs/cgroup/memory.max", "268435456\n", 268435456, true},
		{"sys/fs/cgroup/memory.max", "max\n", 0, false},
		{"sys/fs/cgroup/memory/memory.limit_in_bytes", "134217728\n", 134217728, true},
		{"sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n", 0, false},
	} {
		root := t.TempDir()
		writeFile(t, root, tc.file, tc.content)
		got, ok := cgroupMemoryLimit(root)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s %q: %d %v, want %d %v", tc.file, tc.content, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := cgroupMemoryLimit(t.TempDir()); ok {
		t.Error("a limit without cgroup files")
	}
}

func TestDefaultMemoryLimitOnlyWhenUnset(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	root := t.TempDir()
	writeFile(t, root, "sys/fs/cgroup/memory.max", "100000000")

	t.Setenv("GOMEMLIMIT", "50MiB")
	if got := applyDefaultMemoryLimit(root); got != 0 {
		t.Fatalf("overrode GOMEMLIMIT: %d", got)
	}
	t.Setenv("GOMEMLIMIT", "")
	if got := applyDefaultMemoryLimit(root); got != 90000000 || debug.SetMemoryLimit(-1) != 90000000 {
		t.Fatalf("limit = %d", got)
	}
}

func TestDefaultGCPercentOnlyWhenUnset(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })

	t.Setenv("GOGC", "200")
	if got := applyDefaultGCPercent(); got != 0 || debug.SetGCPercent(100) != 100 {
		t.Fatalf("overrode GOGC: %d", got)
	}
	t.Setenv("GOGC", "")
	if got := applyDefaultGCPercent(); got != defaultGCPercent || debug.SetGCPercent(100) != defaultGCPercent {
		t.Fatalf("GC percent = %d, want %d", got, defaultGCPercent)
	}
}
