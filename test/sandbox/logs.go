package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/klog/v2"
)

// logFile is where the sandbox's klog lines go (the operator's, the
// stand-in's, client-go's) unless -show-logs: interleaved with the demo's
// narrative they bury it, and a newcomer should see the README's
// transcript. The file is kept after a stop, for a look at what went wrong.
const logFile = "sandbox.log"

// redirectLogs sends klog's output to dir/sandbox.log, truncated, and
// returns its path and how to close it. Nothing but a fatal line reaches
// the terminal.
func redirectLogs(dir string) (string, func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("create state directory: %w", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, logFile))
	if err != nil {
		return "", nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return "", nil, fmt.Errorf("log file: %w", err)
	}
	// klog also copies lines at or above stderrthreshold to stderr when it
	// does not log to stderr; only a fatal one should.
	if err := flag.Set("stderrthreshold", "FATAL"); err != nil {
		f.Close()
		return "", nil, fmt.Errorf("klog: %w", err)
	}
	klog.LogToStderr(false)
	klog.SetOutput(f)
	return path, func() { klog.Flush(); f.Close() }, nil
}
