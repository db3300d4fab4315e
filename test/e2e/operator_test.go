package e2e_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// contextForMain is TestMain's context: TestMain has no testing.T.
func contextForMain() context.Context { return context.Background() }

// operatorProc is one running setpoint process.
type operatorProc struct {
	name        string
	cmd         *exec.Cmd
	metricsAddr string
	healthAddr  string
	done        chan struct{}

	mu  sync.Mutex
	log strings.Builder
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startOperator runs the setpoint binary against the test control plane
// with short leader-election timings; it is killed when the test ends.
func startOperator(t *testing.T, name string, extra ...string) *operatorProc {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	p := &operatorProc{name: name, metricsAddr: freeAddr(t), healthAddr: freeAddr(t), done: make(chan struct{})}
	args := append([]string{
		"--kubeconfig", env.KubeconfigPath,
		"--metrics-bind-address", p.metricsAddr,
		"--health-probe-bind-address", p.healthAddr,
		"--leader-election-identity", name,
		"--leader-elect-lease-duration", "6s",
		"--leader-elect-renew-deadline", "4s",
		"--leader-elect-retry-period", "500ms",
		"--resync-period", "1h",
		"-v", "2",
	}, extra...)
	p.cmd = exec.Command(setpoint, args...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout = io.Discard
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.signal(syscall.SIGKILL)
		<-p.done
		if t.Failed() || os.Getenv("SETPOINT_E2E_LOGS") != "" {
			dir := filepath.Join(os.TempDir(), "setpoint-e2e-logs")
			_ = os.MkdirAll(dir, 0o755)
			f := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+"-"+name+".log")
			_ = os.WriteFile(f, []byte(p.logs()), 0o644)
			t.Logf("%s log: %s", name, f)
		}
	})
	p.waitHTTP(t, "http://"+p.healthAddr+"/healthz")
	return p
}

func (p *operatorProc) signal(sig syscall.Signal) {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(sig)
	}
}

func (p *operatorProc) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// waitHTTP waits until url answers 200.
func (p *operatorProc) waitHTTP(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited:\n%s", p.name, p.logs())
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("%s: %s not OK in time\n%s", p.name, url, p.logs())
}

// metric returns the sum of every sample of a metric family on /metrics.
func (p *operatorProc) metric(t *testing.T, family string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + p.metricsAddr + "/metrics")
	if err != nil {
		t.Fatalf("scrape %s: %v", p.name, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var sum float64
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, family) || strings.HasPrefix(line, "#") {
			continue
		}
		rest := line[len(family):]
		if rest != "" && rest[0] != '{' && rest[0] != ' ' {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(line[strings.LastIndex(line, " ")+1:], &v); err == nil {
			sum += v
		}
	}
	return sum
}
