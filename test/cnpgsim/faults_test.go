package cnpgsim_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/test/cnpgsim"
)

func readyCondition(t *testing.T, ns, name string) metav1.ConditionStatus {
	t.Helper()
	cond := meta.FindStatusCondition(getCluster(t, ns, name).Status.Conditions, "Ready")
	if cond == nil {
		return metav1.ConditionUnknown
	}
	return cond.Status
}

func TestFaultStopAndStartServer(t *testing.T) {
	ns := newNamespace(t)
	newCluster(t, ns, "flaky")
	waitHealthy(t, ns, "flaky")

	if err := sim.StopServer(t.Context(), ns, "flaky"); err != nil {
		t.Fatalf("StopServer: %v", err)
	}
	c := waitPhase(t, ns, "flaky", "Failing over")
	if c.Status.ReadyInstances != 0 || readyCondition(t, ns, "flaky") != metav1.ConditionFalse {
		t.Errorf("stopped: readyInstances %d, Ready %s", c.Status.ReadyInstances, readyCondition(t, ns, "flaky"))
	}
	if _, err := query[int](t, readHostMap(t), ns, "flaky", "postgres", "su-flaky", "postgres", "SELECT 1"); err == nil {
		t.Error("connected to a stopped server")
	}
	// A sync while stopped must not bring it back.
	updateCluster(t, ns, "flaky", func(c *cnpgv1.Cluster) { c.Labels = map[string]string{"poke": "1"} })
	time.Sleep(300 * time.Millisecond)
	if got := getCluster(t, ns, "flaky").Status.Phase; got != "Failing over" {
		t.Errorf("phase after a sync while stopped = %q", got)
	}

	if err := sim.StartServer(t.Context(), ns, "flaky"); err != nil {
		t.Fatalf("StartServer: %v", err)
	}
	c = waitHealthy(t, ns, "flaky")
	if c.Status.ReadyInstances != 1 || readyCondition(t, ns, "flaky") != metav1.ConditionTrue {
		t.Errorf("restarted: readyInstances %d", c.Status.ReadyInstances)
	}
	superQuery[int32](t, ns, "flaky", "postgres", "SELECT 1")
}

func TestFaultForcePhase(t *testing.T) {
	ns := newNamespace(t)
	newCluster(t, ns, "stuck")
	waitHealthy(t, ns, "stuck")

	sim.ForcePhase(ns, "stuck", "Waiting for user action")
	c := waitPhase(t, ns, "stuck", "Waiting for user action")
	if readyCondition(t, ns, "stuck") != metav1.ConditionFalse || c.Status.ReadyInstances != 1 {
		t.Errorf("forced: Ready %s, readyInstances %d", readyCondition(t, ns, "stuck"), c.Status.ReadyInstances)
	}
	sim.ForcePhase(ns, "stuck", "")
	waitHealthy(t, ns, "stuck")
	if readyCondition(t, ns, "stuck") != metav1.ConditionTrue {
		t.Error("Ready not True after clearing the phase")
	}
}

func TestFaultHealthyDelay(t *testing.T) {
	ns := newNamespace(t)
	const delay = 2 * time.Second
	sim.SetHealthyDelay(ns, "slow", delay)
	start := time.Now()
	newCluster(t, ns, "slow")
	waitPhase(t, ns, "slow", "Setting up primary")
	eventually(t, 20*time.Second, "server up", func() error {
		_, err := query[int32](t, readHostMap(t), ns, "slow", "postgres", "su-slow", "postgres", "SELECT 1")
		return err
	})
	if got := getCluster(t, ns, "slow").Status.Phase; got != "Setting up primary" && time.Since(start) < delay {
		t.Errorf("phase during the delay, with the server up = %q", got)
	}
	waitHealthy(t, ns, "slow")
	if took := time.Since(start); took < delay {
		t.Errorf("healthy after %s, before the %s delay", took, delay)
	}
}

func TestFaultsRefusedInSharedMode(t *testing.T) {
	needControlPlane(t)
	if err := sharedSim.StopServer(t.Context(), "any", "any"); !errors.Is(err, cnpgsim.ErrSharedBackend) {
		t.Errorf("StopServer in shared mode: %v", err)
	}
}

// A postmaster that dies on its own is noticed at once and restarted, as
// CNPG would fail over and heal.
func TestServerCrashIsHealed(t *testing.T) {
	ns := newNamespace(t)
	newCluster(t, ns, "crashy")
	c := waitHealthy(t, ns, "crashy")
	addr := sim.Addr(ns, "crashy")
	dir := serverDirByPort(t, addr[strings.LastIndex(addr, ":")+1:])
	pid := postmasterPID(t, dir)

	w, err := pg.CNPGV1().Clusters(ns).Watch(t.Context(), metav1.ListOptions{ResourceVersion: c.ResourceVersion})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill postmaster: %v", err)
	}
	// The watch may first see healthy writes made before the kill (the
	// ContinuousArchiving condition follows the first archived segment, as
	// in CNPG): the crash's phases start at its first unhealthy one.
	phases := collectPhases(w, "Cluster in healthy state", "Failing over")
	if len(phases) < 2 || phases[0] != "Failing over" {
		log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
		t.Errorf("phases after the crash = %q; status %+v; new pid %d; log:\n%s",
			phases, getCluster(t, ns, "crashy").Status, postmasterPID(t, dir), log)
	}
	eventually(t, 20*time.Second, "new postmaster", func() error {
		if p := postmasterPID(t, dir); p == pid || p == 0 {
			return errors.New("not restarted")
		}
		return nil
	})
	superQuery[int32](t, ns, "crashy", "postgres", "SELECT 1")
}

func postmasterPID(t *testing.T, dir string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(data), "\n", 2)[0])
	return pid
}
