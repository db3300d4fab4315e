package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/setpoint-dev/setpoint/test/freeport"
)

// buildOperator compiles cmd/setpoint into dir as the image does (static,
// stripped, hack/tools/imagebuild): the memory figures are the shipped
// binary's, not one that maps libc and carries debug sections.
func buildOperator(ctx context.Context, dir string) (string, error) {
	out := filepath.Join(dir, "setpoint")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, "github.com/setpoint-dev/setpoint/cmd/setpoint")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build setpoint: %w", err)
	}
	return out, nil
}

// operatorProc is one running setpoint process; its log goes to a file.
type operatorProc struct {
	name        string
	cmd         *exec.Cmd
	metricsAddr string
	healthAddr  string
	// profilingAddr serves the operator's Go profiles (loopback).
	profilingAddr string
	logPath       string
	done          chan struct{}

	mu      sync.Mutex
	errLogs []string // first lines at error level, for the report
	nErrors int
}

func freeAddr() (string, error) {
	return freeport.Addr()
}

// startWatching runs an operator without leader election that watches
// namespace ns, with the settings the lower bound shares (workers, client
// QPS and burst) and the resync period; extra flags follow.
func (b *bench) startWatching(ctx context.Context, name, ns, hostMap string, extra ...string) (*operatorProc, error) {
	f := b.f
	args := append([]string{
		"--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap,
		"--resync-period", f.resync.String(),
		"--cluster-workers", fmt.Sprint(f.clusterWorkers), "--database-workers", fmt.Sprint(f.databaseWorkers),
		"--kube-api-qps", fmt.Sprint(f.qps), "--kube-api-burst", fmt.Sprint(f.burst),
	}, extra...)
	if f.passLog {
		args = append(args, passLogVerbosity)
	}
	return startOperator(ctx, b.bin, b.env.KubeconfigPath, b.logDir, name, args...)
}

// startOperator runs the binary and waits for /healthz.
func startOperator(ctx context.Context, bin, kubeconfig, logDir, name string, extra ...string) (*operatorProc, error) {
	m, err := freeAddr()
	if err != nil {
		return nil, err
	}
	h, err := freeAddr()
	if err != nil {
		return nil, err
	}
	pp, err := freeAddr()
	if err != nil {
		return nil, err
	}
	p := &operatorProc{name: name, metricsAddr: m, healthAddr: h, profilingAddr: pp, done: make(chan struct{}),
		logPath: filepath.Join(logDir, name+".log")}
	args := append([]string{
		"--kubeconfig", kubeconfig,
		"--metrics-bind-address", m,
		"--metrics-secure=false", // scraped over plain HTTP
		"--health-probe-bind-address", h,
		"--leader-election-identity", name,
	}, append(extra, operatorFlags...)...)
	if heapProfiles {
		// Profiling turns heap-profile sampling on, which costs memory
		// (about 1 MiB of RSS here): off unless asked for.
		args = append(args, "--profiling-bind-address", pp)
	}
	logFile, err := os.Create(p.logPath)
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(os.Environ(), operatorEnv...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	p.cmd.Stdout = logFile
	if err := p.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		defer close(p.done)
		defer logFile.Close()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if strings.HasPrefix(line, "E") {
				p.mu.Lock()
				p.nErrors++
				if len(p.errLogs) < 5 {
					p.errLogs = append(p.errLogs, line)
				}
				p.mu.Unlock()
			}
		}
		_ = p.cmd.Wait()
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if ok := get200("http://" + h + "/healthz"); ok {
			return p, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited at start; log %s:\n%s", name, p.logPath, tail(p.logPath, 20))
		case <-ctx.Done():
			p.kill()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.kill()
			return nil, fmt.Errorf("%s: /healthz not OK in 60s", name)
		}
	}
}

func get200(url string) bool {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (p *operatorProc) signal(sig syscall.Signal) {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(sig)
	}
}

// kill ends the process and waits for it; safe to call more than once.
func (p *operatorProc) kill() {
	p.signal(syscall.SIGKILL)
	<-p.done
}

func (p *operatorProc) scrape() (scrape, error) {
	return scrapeURL("http://" + p.metricsAddr + "/metrics")
}

// saveHeapProfile writes the operator's heap profile (inuse and alloc
// samples; `go tool pprof -sample_index=inuse_space FILE`) to path.
func (p *operatorProc) saveHeapProfile(path string) error {
	c := http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get("http://" + p.profilingAddr + "/debug/pprof/heap")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("heap profile: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (p *operatorProc) errorLines() (int, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nErrors, append([]string(nil), p.errLogs...)
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
