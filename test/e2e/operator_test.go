package e2e_test

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
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/test/freeport"
	"github.com/setpoint-dev/setpoint/test/promsample"
)

// contextForMain is TestMain's context: TestMain has no testing.T.
func contextForMain() context.Context { return context.Background() }

// operatorProc is one running setpoint process.
type operatorProc struct {
	name        string
	cmd         *exec.Cmd
	metricsAddr string
	healthAddr  string
	// metricsToken, when set, scrapes /metrics over HTTPS with this bearer
	// token (an operator run with --metrics-secure=true).
	metricsToken string
	done         chan struct{}

	mu  sync.Mutex
	log strings.Builder
}

func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := freeport.Addr()
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	return addr
}

// startOperator runs the setpoint binary against the test control plane
// with short leader-election timings; it is killed when the test ends.
// Its ports are picked free just before it starts, and a test running in
// parallel may take one in between: an operator that exits because an
// address is in use is started again on other ports.
func startOperator(t *testing.T, name string, extra ...string) *operatorProc {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	for attempt := 1; ; attempt++ {
		p := &operatorProc{name: name, metricsAddr: freeAddr(t), healthAddr: freeAddr(t), done: make(chan struct{})}
		args := append([]string{
			"--kubeconfig", env.KubeconfigPath,
			"--metrics-bind-address", p.metricsAddr,
			"--metrics-secure=false", // scraped over plain HTTP; the metrics auth test turns it on
			"--health-probe-bind-address", p.healthAddr,
			"--leader-election-identity", name,
			"--leader-elect-lease-duration", "6s",
			"--leader-elect-renew-deadline", "4s",
			"--leader-elect-retry-period", "500ms",
			"--resync-period", "1h",
			"-v", "2",
		}, extra...)
		p.cmd = exec.Command(setpoint, args...)
		p.launch(t)
		err := p.awaitHTTP("http://" + p.healthAddr + "/healthz")
		if err == nil {
			return p
		}
		if attempt < 3 && strings.Contains(p.logs(), "address already in use") {
			continue
		}
		t.Fatalf("%s: %v\n%s", name, err, p.logs())
	}
}

// launch starts p.cmd, collects its stderr, and kills it when the test
// ends (keeping its log when the test failed).
func (p *operatorProc) launch(t *testing.T) {
	t.Helper()
	name := p.name
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

// awaitHTTP waits until url answers 200; it fails when the process
// exits first or the answer does not come in time.
func (p *operatorProc) awaitHTTP(url string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("exited before %s answered", url)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s not OK in time", url)
}

// sample is one sample of a metric family.
type sample struct {
	labels map[string]string
	value  float64
}

// samples scrapes the operator's /metrics for one metric family.
func (p *operatorProc) samples(t *testing.T, family string) []sample {
	t.Helper()
	scheme := "http"
	if p.metricsToken != "" {
		scheme = "https"
	}
	code, body, err := scrapeMetrics(t.Context(), scheme+"://"+p.metricsAddr+"/metrics", p.metricsToken)
	if err != nil || code != http.StatusOK {
		t.Fatalf("scrape %s: %d %v", p.name, code, err)
	}
	parsed, err := promsample.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatalf("scrape %s: %v", p.name, err)
	}
	var out []sample
	for _, s := range parsed {
		if s.Name == family {
			out = append(out, sample{labels: s.Labels, value: s.Value})
		}
	}
	return out
}

// metric sums the samples of a family whose labels include every pair of
// match ("key", "value", ...).
func (p *operatorProc) metric(t *testing.T, family string, match ...string) float64 {
	t.Helper()
	var sum float64
	for _, s := range p.samples(t, family) {
		ok := true
		for i := 0; i+1 < len(match); i += 2 {
			ok = ok && s.labels[match[i]] == match[i+1]
		}
		if ok {
			sum += s.value
		}
	}
	return sum
}
