package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The binary under test, built once with release-style -ldflags.
var (
	binary   string
	buildErr error
)

const (
	testVersion = "v9.9.9-test"
	testCommit  = "0123456789abcdef"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "setpoint-cmd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "setpoint")
	pkg := "github.com/setpoint-dev/setpoint/pkg/version"
	build := exec.Command("go", "build", "-o", binary,
		"-ldflags", fmt.Sprintf("-X %s.Version=%s -X %s.Commit=%s", pkg, testVersion, pkg, testCommit), ".")
	if out, err := build.CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("go build: %v\n%s", err, out)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func needBinary(t *testing.T) {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

func TestVersionFlag(t *testing.T) {
	needBinary(t)
	out, err := exec.Command(binary, "--version").Output()
	if err != nil {
		t.Fatalf("setpoint --version: %v", err)
	}
	want := fmt.Sprintf("setpoint %s (commit %s, %s)\n", testVersion, testCommit, runtime.Version())
	if string(out) != want {
		t.Errorf("setpoint --version printed %q, want %q", out, want)
	}
}

func TestUnknownLogFormatIsRefused(t *testing.T) {
	needBinary(t)
	out, err := exec.Command(binary, "--log-format=xml", "--kubeconfig", unreachableKubeconfig(t)).CombinedOutput()
	if err == nil {
		t.Fatalf("setpoint --log-format=xml succeeded; output:\n%s", out)
	}
	if !strings.Contains(string(out), "Unsupported log format") {
		t.Errorf("output does not name the problem:\n%s", out)
	}
}

// TestJSONLogs runs the binary with --log-format=json against an API server
// that does not answer (so it logs errors too) and parses every line it
// writes; the build_info gauge is checked on the /metrics it serves.
func TestJSONLogs(t *testing.T) {
	needBinary(t)
	cmd := exec.Command(binary, "--log-format=json", "--kubeconfig", unreachableKubeconfig(t),
		"--leader-elect=false", "--metrics-bind-address=127.0.0.1:0", "--metrics-secure=false",
		"--health-probe-bind-address=127.0.0.1:0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()

	var starting, serving map[string]any
	timeout := time.After(30 * time.Second)
	for starting == nil || serving == nil {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("setpoint exited before logging that it serves metrics")
			}
			entry := parseJSONLine(t, line)
			switch entry["msg"] {
			case "Starting":
				starting = entry
			case "Serving metrics":
				serving = entry
			}
		case <-timeout:
			t.Fatal("no \"Starting\" and \"Serving metrics\" lines within 30s")
		}
	}
	for key, want := range map[string]any{"logger": "setpoint", "version": testVersion, "commit": testCommit, "leaderElect": false} {
		if starting[key] != want {
			t.Errorf("Starting line: %s = %v, want %v (line %v)", key, starting[key], want, starting)
		}
	}
	addr, _ := serving["addr"].(string)
	checkBuildInfo(t, "http://"+addr+"/metrics")

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for line := range lines { // every line up to the exit is JSON too
		parseJSONLine(t, line)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("setpoint did not stop cleanly on SIGTERM: %v", err)
	}
}

// parseJSONLine fails the test unless line is one JSON object with the
// fields of component-base's JSON format.
func parseJSONLine(t *testing.T, line string) map[string]any {
	t.Helper()
	var entry map[string]any
	if err := json.Unmarshal([]byte(line), &entry); err != nil {
		t.Fatalf("log line is not JSON (%v): %s", err, line)
	}
	for _, key := range []string{"ts", "msg"} {
		if _, ok := entry[key]; !ok {
			t.Errorf("log line has no %q: %s", key, line)
		}
	}
	return entry
}

func checkBuildInfo(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`setpoint_build_info{commit=%q,goversion=%q,version=%q} 1`, testCommit, runtime.Version(), testVersion)
	if !strings.Contains(string(body), want+"\n") {
		t.Errorf("/metrics has no line %s", want)
	}
}

// unreachableKubeconfig points at a loopback port nothing listens on.
func unreachableKubeconfig(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://%s", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: not-a-real-token}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, addr)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
