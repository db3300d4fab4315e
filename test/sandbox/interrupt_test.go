package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/freeport"
)

// TestMakeDemoCtrlC runs `make demo` on a pseudo-terminal, as a user's
// shell would, and types Ctrl-C once the demo waits for the user. make must
// then end with status 0 and no "make: *** … Error".
func TestMakeDemoCtrlC(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(envtest.RequireEnv) != "1" {
		if _, err := os.Stat(filepath.Join(root, "bin", "kube-apiserver")); err != nil {
			t.Skip("control plane not built: run `make controlplane`")
		}
	}
	master, slave, err := openPTY()
	if err != nil {
		t.Fatalf("pseudo-terminal: %v", err)
	}
	defer master.Close()
	dir := filepath.Join(t.TempDir(), "sandbox")
	flags := "-dir " + dir + " -metrics-bind-address " + freeAddr(t)
	cmd := exec.Command("make", "--no-print-directory", "-C", root, "demo", "DEMO_FLAGS="+flags)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	// A session of its own with the terminal as its controlling terminal:
	// make's group is the terminal's foreground group, like a shell's job.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()

	var screen strings.Builder
	prompt := make(chan struct{})
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(master) // ends with EIO once no one holds the terminal
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := strings.TrimRight(sc.Text(), "\r")
			screen.WriteString(line + "\n")
			if strings.HasPrefix(line, "Explore with kubectl") {
				close(prompt)
			}
		}
	}()
	select {
	case <-prompt:
	case <-readDone:
		t.Fatalf("make demo ended before the demo finished:\n%s", screen.String())
	case <-time.After(10 * time.Minute):
		t.Fatalf("the demo did not finish within 10 minutes:\n%s", screen.String())
	}
	if _, err := master.Write([]byte{3}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	waitErr := cmd.Wait()
	<-readDone
	out := screen.String()
	if waitErr != nil {
		t.Errorf("make demo after Ctrl-C: %v, want exit status 0", waitErr)
	}
	if strings.Contains(out, "make: ***") {
		t.Errorf("make reported an error after Ctrl-C")
	}
	if !strings.Contains(out, "sandbox: stopped, nothing left running") {
		t.Errorf("the sandbox did not report a clean stop")
	}
	// The terminal shows the narrative alone; the log lines are in the file.
	klogLine := regexp.MustCompile(`(?m)^[IWEF]\d{4} \d\d:\d\d:\d\d`)
	if lines := klogLine.FindAllString(out, -1); len(lines) > 0 {
		t.Errorf("%d klog line(s) on the terminal, want them in %s", len(lines), logFile)
	}
	if log, err := os.ReadFile(filepath.Join(dir, logFile)); err != nil || !klogLine.Match(log) {
		t.Errorf("%s holds no klog line (%v)", logFile, err)
	}
	if t.Failed() {
		t.Logf("terminal:\n%s", out)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := freeport.Addr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}
