package cnpgsim_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

func TestClusterLifecycle(t *testing.T) {
	ns := newNamespace(t)
	w, err := pg.CNPGV1().Clusters(ns).Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	phases := make(chan []string, 1)
	go func() { phases <- collectPhases(w, "Cluster in healthy state") }()

	newCluster(t, ns, "shop", func(c *cnpgv1.Cluster) {
		c.Spec.PostgresConfiguration = &cnpgv1.PostgresConfiguration{
			Parameters: map[string]string{"work_mem": "8MB"},
			PgHBA:      []string{"hostssl all all 10.0.0.0/8 scram-sha-256"},
		}
	})
	c := waitHealthy(t, ns, "shop")

	t.Run("phases", func(t *testing.T) {
		select {
		case got := <-phases:
			if !slices.Equal(got, []string{"Setting up primary", "Cluster in healthy state"}) {
				t.Errorf("phases = %q", got)
			}
		case <-time.After(5 * time.Second):
			t.Error("watch did not see the healthy phase")
		}
	})
	t.Run("status", func(t *testing.T) {
		st := c.Status
		if st.Instances != 1 || st.ReadyInstances != 1 || st.CurrentPrimary != "shop-1" || st.TargetPrimary != "shop-1" ||
			st.WriteService != "shop-rw" || st.ReadService != "shop-r" {
			t.Errorf("status = %+v", st)
		}
		cond := meta.FindStatusCondition(st.Conditions, "Ready")
		if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != "ClusterIsReady" {
			t.Errorf("Ready condition = %+v", cond)
		}
	})
	t.Run("services and CA are owned by the cluster", func(t *testing.T) {
		for _, name := range []string{"shop-rw", "shop-ro", "shop-r"} {
			svc, err := kube.CoreV1().Services(ns).Get(t.Context(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("service %s: %v", name, err)
			}
			if svc.Spec.Ports[0].Port != 5432 || metav1.GetControllerOf(svc) == nil || metav1.GetControllerOf(svc).UID != c.UID {
				t.Errorf("service %s = %+v", name, svc)
			}
		}
		ca, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "shop-ca", metav1.GetOptions{})
		if err != nil || len(ca.Data["ca.crt"]) == 0 {
			t.Fatalf("CA secret: %v", err)
		}
	})
	t.Run("TLS on every service name with the superuser password", func(t *testing.T) {
		hm := readHostMap(t)
		for _, svc := range []string{"shop-rw", "shop-ro", "shop-r"} {
			for _, host := range []string{svc + "." + ns, svc + "." + ns + ".svc", svc + "." + ns + ".svc.cluster.local"} {
				if hm[host+":5432"] != sim.Addr(ns, "shop") {
					t.Errorf("host map %s = %q, want %q", host, hm[host+":5432"], sim.Addr(ns, "shop"))
				}
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			conn, err := dial(ctx, hm, ns, svc, "shop", "postgres", "su-shop", "postgres")
			if err != nil {
				cancel()
				t.Fatalf("connect to %s: %v", svc, err)
			}
			var ssl bool
			if err := conn.QueryRow(ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl); err != nil || !ssl {
				t.Errorf("ssl = %v, %v", ssl, err)
			}
			conn.Close(ctx)
			cancel()
		}
		if _, err := query[int](t, hm, ns, "shop", "postgres", "wrong", "postgres", "SELECT 1"); err == nil {
			t.Error("wrong superuser password accepted")
		}
		if _, err := query[int](t, hm, ns, "other", "postgres", "su-shop", "postgres", "SELECT 1"); err == nil {
			t.Error("connected through another cluster's name")
		}
	})
	t.Run("user pg_hba lines are installed", func(t *testing.T) {
		n := superQuery[int64](t, ns, "shop", "postgres", "SELECT count(*) FROM pg_hba_file_rules WHERE '10.0.0.0' = address")
		if n != 1 {
			t.Errorf("pg_hba rules for 10.0.0.0 = %d", n)
		}
	})
	t.Run("parameters: reload and restart", func(t *testing.T) {
		if got := superQuery[string](t, ns, "shop", "postgres", "SHOW work_mem"); got != "8MB" {
			t.Errorf("work_mem = %s", got)
		}
		updateCluster(t, ns, "shop", func(c *cnpgv1.Cluster) {
			c.Spec.PostgresConfiguration.Parameters = map[string]string{"work_mem": "16MB", "max_connections": "120"}
		})
		eventually(t, 20*time.Second, "new parameters", func() error {
			got, err := query[string](t, readHostMap(t), ns, "shop", "postgres", "su-shop", "postgres",
				"SELECT current_setting('work_mem') || ' ' || current_setting('max_connections')")
			if err != nil {
				return err
			}
			if got != "16MB 120" {
				return fmt.Errorf("work_mem max_connections = %s", got)
			}
			return nil
		})
		waitHealthy(t, ns, "shop")
	})
	t.Run("a refused parameter is reported and rolled back", func(t *testing.T) {
		updateCluster(t, ns, "shop", func(c *cnpgv1.Cluster) { c.Spec.PostgresConfiguration.Parameters["work_mem"] = "lots" })
		eventually(t, 20*time.Second, "phase reason", func() error {
			c := getCluster(t, ns, "shop")
			if c.Status.Phase != "Applying configuration" || !strings.Contains(c.Status.PhaseReason, "work_mem") {
				return fmt.Errorf("phase %q, reason %q", c.Status.Phase, c.Status.PhaseReason)
			}
			return nil
		})
		if got := superQuery[string](t, ns, "shop", "postgres", "SHOW work_mem"); got != "16MB" {
			t.Errorf("work_mem = %s, want the last good value", got)
		}
		updateCluster(t, ns, "shop", func(c *cnpgv1.Cluster) { c.Spec.PostgresConfiguration.Parameters["work_mem"] = "32MB" })
		waitHealthy(t, ns, "shop")
		if got := superQuery[string](t, ns, "shop", "postgres", "SHOW work_mem"); got != "32MB" {
			t.Errorf("work_mem = %s", got)
		}
	})
	t.Run("deletion stops the server and removes its data", func(t *testing.T) {
		addr := sim.Addr(ns, "shop")
		port := addr[strings.LastIndex(addr, ":")+1:]
		dataDir := serverDirByPort(t, port)
		if err := pg.CNPGV1().Clusters(ns).Delete(t.Context(), "shop", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete: %v", err)
		}
		eventually(t, 20*time.Second, "server gone", func() error {
			if a := sim.Addr(ns, "shop"); a != "" {
				return fmt.Errorf("still served at %s", a)
			}
			if _, ok := readHostMap(t)["shop-rw."+ns+".svc:5432"]; ok {
				return fmt.Errorf("still in the host map")
			}
			return nil
		})
		if out, _ := exec.Command("pgrep", "-f", "postgres .*-p "+port+" ").Output(); len(out) > 0 {
			t.Errorf("postgres still running on port %s: pids %s", port, out)
		}
		if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
			t.Errorf("data directory %s left behind: %v", dataDir, err)
		}
	})
}

// serverDirByPort finds the server directory whose postmaster.pid names
// port (its fourth line).
func serverDirByPort(t *testing.T, port string) string {
	t.Helper()
	entries, err := os.ReadDir(sim.Dir())
	if err != nil {
		t.Fatalf("read data root: %v", err)
	}
	for _, e := range entries {
		dir := filepath.Join(sim.Dir(), e.Name())
		pid, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
		if lines := strings.Split(string(pid), "\n"); err == nil && len(lines) > 3 && lines[3] == port {
			return dir
		}
	}
	t.Fatalf("no server directory for port %s", port)
	return ""
}

// collectPhases returns the distinct phases a watch sees, in order, up to
// and including last; with from, those before the first from are skipped.
func collectPhases(w watch.Interface, last string, from ...string) []string {
	var phases []string
	timeout := time.After(30 * time.Second)
	for {
		var ev watch.Event
		var ok bool
		select {
		case ev, ok = <-w.ResultChan():
		case <-timeout:
			return append(phases, "(timed out)")
		}
		if !ok {
			return phases
		}
		c, ok := ev.Object.(*cnpgv1.Cluster)
		if !ok || c.Status.Phase == "" {
			continue
		}
		if len(phases) == 0 && len(from) > 0 && c.Status.Phase != from[0] {
			continue
		}
		if len(phases) == 0 || phases[len(phases)-1] != c.Status.Phase {
			phases = append(phases, c.Status.Phase)
		}
		if c.Status.Phase == last {
			return phases
		}
	}
}

func TestSuperuserAccessDisabledMeansNoPassword(t *testing.T) {
	ns := newNamespace(t)
	newCluster(t, ns, "locked", func(c *cnpgv1.Cluster) { c.Spec.EnableSuperuserAccess = boolPtr(false) })
	waitHealthy(t, ns, "locked")
	_, err := query[int](t, readHostMap(t), ns, "locked", "postgres", "su-locked", "postgres", "SELECT 1")
	if err == nil || !strings.Contains(err.Error(), "password authentication failed") {
		t.Errorf("superuser login with access disabled: %v", err)
	}
}
