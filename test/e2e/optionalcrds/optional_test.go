package optionalcrds_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/cnpgsim"
	"github.com/setpoint-dev/setpoint/test/freeport"
	"github.com/setpoint-dev/setpoint/test/promsample"
)

// Without CloudNativePG's CRDs the operator is not ready, says why in
// /readyz and once in its log, and starts working when they are installed,
// without a restart. Without the barman-cloud plugin's CRD it reconciles
// everything else, and a cluster asking for backups to object storage gets
// ObjectStoreReady False BackupTargetUnavailable until the plugin's CRD
// appears. Without the Prometheus Operator's PodMonitor CRD, likewise, a
// cluster asking for monitoring gets PodMonitorReady False
// MonitoringUnavailable until it appears.
func TestOptionalCRDs(t *testing.T) {
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	ns := kit.Namespace(t)
	hostMap := filepath.Join(t.TempDir(), "hostmap.json")
	op := start(t, "--kubeconfig", env.KubeconfigPath, "--leader-elect=false", "--namespace", ns,
		"--postgres-host-map", hostMap, "--metrics-secure=false")

	// Created while CNPG is missing: reconciled once it is installed.
	newClass(t, "plain-"+ns, nil)
	newCluster(t, ns, "plain", "plain-"+ns)

	top := t // the stand-in runs until the whole test ends
	const waiting = "Waiting for CloudNativePG"
	t.Run("without CNPG not ready, said once", func(t *testing.T) {
		code, body := op.get(t, "/readyz")
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "CloudNativePG is not installed") ||
			!strings.Contains(body, "postgresql.cnpg.io/v1") {
			t.Errorf("/readyz = %d %q", code, body)
		}
		// Several discovery polls (two requests each) have happened...
		kit.Until(t, 30*time.Second, "three discovery polls", func(context.Context) (bool, error) {
			return op.apiRequests(t, "nonresource") >= 6, nil
		})
		// ...and the log says it once.
		if n := strings.Count(op.logs(), waiting); n != 1 {
			t.Errorf("%q logged %d times, want once:\n%s", waiting, n, op.logs())
		}
		if code, _ := op.get(t, "/healthz"); code != http.StatusOK {
			t.Errorf("/healthz = %d while waiting for CNPG", code)
		}
	})

	t.Run("CNPG installed: works without a restart", func(t *testing.T) {
		pid := op.cmd.Process.Pid
		if err := env.InstallCRDs(t.Context(), func(n string) bool { return strings.HasSuffix(n, ".postgresql.cnpg.io") }); err != nil {
			t.Fatal(err)
		}
		startSimulator(top, hostMap)
		kit.Until(t, 60*time.Second, "/readyz OK", func(context.Context) (bool, error) {
			code, _ := op.get(t, "/readyz")
			return code == http.StatusOK, nil
		})
		kit.WaitCluster(t, ns, "plain", pgv1.PhaseReady, 120*time.Second)
		if op.exited() || op.cmd.Process.Pid != pid {
			t.Fatalf("the operator restarted")
		}
		if n := strings.Count(op.logs(), waiting); n != 1 {
			t.Errorf("%q logged %d times, want once", waiting, n)
		}
	})

	t.Run("without the barman-cloud plugin: BackupTargetUnavailable", func(t *testing.T) {
		newClass(t, "backed-"+ns, &pgv1.BackupSpec{Schedule: "0 2 * * *", ObjectStore: &pgv1.ObjectStoreSpec{
			DestinationPath: "s3://backups/pg", CredentialsSecretName: "backup-creds"}})
		newCluster(t, ns, "backed", "backed-"+ns)
		c := kit.WaitClusterReason(t, ns, "backed", pgv1.ConditionObjectStoreReady, "BackupTargetUnavailable", 120*time.Second)
		cond := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionObjectStoreReady)
		if cond.Status != metav1.ConditionFalse || !strings.Contains(cond.Message, "the barman-cloud plugin is not installed (CRD objectstores.barmancloud.cnpg.io missing)") {
			t.Errorf("ObjectStoreReady = %s %q", cond.Status, cond.Message)
		}
		if c.Status.Phase != pgv1.PhasePending {
			t.Errorf("phase %s, want Pending", c.Status.Phase)
		}
		if n := strings.Count(op.logs(), "The barman-cloud plugin is not installed"); n != 1 {
			t.Errorf("the missing plugin was logged %d times, want once", n)
		}
		// Everything else still reconciles.
		if code, _ := op.get(t, "/readyz"); code != http.StatusOK {
			t.Errorf("/readyz = %d without the plugin", code)
		}
	})

	t.Run("plugin installed: backups proceed without a restart", func(t *testing.T) {
		pid := op.cmd.Process.Pid
		if err := env.InstallCRDs(t.Context(), func(n string) bool { return strings.HasSuffix(n, ".barmancloud.cnpg.io") }); err != nil {
			t.Fatal(err)
		}
		kit.WaitCluster(t, ns, "backed", pgv1.PhaseReady, 120*time.Second)
		if _, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), "backed-backup", metav1.GetOptions{}); err != nil {
			t.Errorf("ObjectStore: %v", err)
		}
		if op.exited() || op.cmd.Process.Pid != pid {
			t.Fatalf("the operator restarted")
		}
	})

	t.Run("without the Prometheus Operator: MonitoringUnavailable", func(t *testing.T) {
		newMonitoredCluster(t, ns, "watched", "plain-"+ns)
		c := kit.WaitClusterReason(t, ns, "watched", pgv1.ConditionPodMonitorReady, "MonitoringUnavailable", 120*time.Second)
		cond := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionPodMonitorReady)
		if cond.Status != metav1.ConditionFalse || cond.Message != "the Prometheus Operator is not installed (CRD podmonitors.monitoring.coreos.com missing)" {
			t.Errorf("PodMonitorReady = %s %q", cond.Status, cond.Message)
		}
		if c.Status.Phase != pgv1.PhasePending {
			t.Errorf("phase %s, want Pending", c.Status.Phase)
		}
		if n := strings.Count(op.logs(), "The Prometheus Operator is not installed"); n != 1 {
			t.Errorf("the missing Prometheus Operator was logged %d times, want once", n)
		}
	})

	t.Run("Prometheus Operator installed: PodMonitor without a restart", func(t *testing.T) {
		pid := op.cmd.Process.Pid
		if err := env.InstallCRDs(t.Context(), func(n string) bool { return n == podMonitorCRD }); err != nil {
			t.Fatal(err)
		}
		kit.WaitCluster(t, ns, "watched", pgv1.PhaseReady, 120*time.Second)
		pm, err := pg.MonitoringV1().PodMonitors(ns).Get(t.Context(), "watched-metrics", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("PodMonitor: %v", err)
		}
		if pm.Spec.Selector.MatchLabels["cnpg.io/cluster"] != "watched" {
			t.Errorf("PodMonitor selector %+v", pm.Spec.Selector)
		}
		if op.exited() || op.cmd.Process.Pid != pid {
			t.Fatalf("the operator restarted")
		}
	})
}

func startSimulator(t *testing.T, hostMap string) {
	t.Helper()
	sim, err := cnpgsim.New(env.Config, cnpgsim.Options{HostMapFile: hostMap})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := sim.Run(ctx); err != nil {
			t.Errorf("CNPG stand-in: %v", err)
		}
	}()
	// Registered after the operator's cleanup, so it runs first.
	t.Cleanup(func() { cancel(); <-done })
}

func newClass(t *testing.T, name string, backup *pgv1.BackupSpec) {
	t.Helper()
	c := &pgv1.PostgresClusterClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: pgv1.PostgresClusterClassSpec{
		ClusterSettings: pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15), Backup: backup}}}
	if _, err := pg.PostgresV1alpha1().PostgresClusterClasses().Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create class: %v", err)
	}
	t.Cleanup(func() {
		_ = pg.PostgresV1alpha1().PostgresClusterClasses().Delete(context.WithoutCancel(t.Context()), name, metav1.DeleteOptions{})
	})
}

func newCluster(t *testing.T, ns, name, class string) {
	t.Helper()
	c := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete}}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create cluster: %v", err)
	}
}

func newMonitoredCluster(t *testing.T, ns, name, class string) {
	t.Helper()
	c := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			ClusterSettings: pgv1.ClusterSettings{Monitoring: &pgv1.MonitoringSpec{Enabled: ptr.To(true)}}}}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create cluster: %v", err)
	}
}

// proc is the running operator.
type proc struct {
	cmd         *exec.Cmd
	healthAddr  string
	metricsAddr string
	done        chan struct{}
	mu          sync.Mutex
	log         strings.Builder
}

func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := freeport.Addr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

func start(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{healthAddr: freeAddr(t), metricsAddr: freeAddr(t), done: make(chan struct{})}
	p.cmd = exec.Command(setpoint, append(args, "--health-probe-bind-address", p.healthAddr,
		"--metrics-bind-address", p.metricsAddr, "-v", "2")...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout = io.Discard
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
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
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("operator log:\n%s", p.logs())
		}
	})
	kit.Until(t, 30*time.Second, "operator serving /healthz", func(context.Context) (bool, error) {
		if p.exited() {
			t.Fatalf("operator exited:\n%s", p.logs())
		}
		code, _ := p.get(t, "/healthz")
		return code == http.StatusOK, nil
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// get returns the status and body of a health endpoint (0 when unreachable).
func (p *proc) get(t *testing.T, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+p.healthAddr+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// apiRequests sums setpoint_api_requests_total for one resource label.
func (p *proc) apiRequests(t *testing.T, resource string) float64 {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+p.metricsAddr+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape /metrics: %v", err)
	}
	defer resp.Body.Close()
	samples, err := promsample.Parse(resp.Body)
	if err != nil {
		t.Fatalf("scrape /metrics: %v", err)
	}
	return promsample.Sum(samples, "setpoint_api_requests_total", "resource", resource)
}
