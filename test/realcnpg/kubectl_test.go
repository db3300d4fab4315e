package realcnpg

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/commands"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
)

// kubectlSetpoint runs `kubectl setpoint ARGS` in-process against the
// node, with every default real: the port-forward goes through the API
// server to the kubelet and the Pod, psql is the host's.
func kubectlSetpoint(t *testing.T, ns string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := commands.NewRoot(&commands.Options{Streams: genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}})
	root.SetArgs(append([]string{args[0], "--kubeconfig", theNode.KubeconfigPath, "--namespace", ns}, args[1:]...))
	err := root.ExecuteContext(t.Context())
	return out.String(), errOut.String(), err
}

// `kubectl setpoint psql` on real CNPG: a port-forward through the API
// server to the primary's Pod, the role's password from its Secret into
// psql's environment, the server verified against the cluster's CA. The
// sandbox has no kubelet, so this is where the port-forward is proven.
// So is psql through the pooler. `status -o json` reads real CNPG's
// instances; `report` bundles them without a Secret value; `restart`
// reaches CNPG through setpoint (ADR-0018).
func TestKubectlPluginOnRealCNPG(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatalf("psql is not installed: %v", err)
	}
	ns := kit.Namespace(t)
	smallClass(t, "small-"+ns, func(s *pgv1.ClusterSettings) {
		s.ConnectionPooler = &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(true), Instances: ptr.To[int32](1), PoolMode: pgv1.PoolModeTransaction}
	})
	createCluster(t, ns, "shop", "small-"+ns)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)

	out, errOut, err := kubectlSetpoint(t, ns, "psql", "app", "--database", "orders", "--role", "admin", "--",
		"-XAtc", "select current_user || ' ' || current_database() || ' ' || (select ssl from pg_stat_ssl where pid = pg_backend_pid())")
	if err != nil {
		t.Fatalf("kubectl setpoint psql: %v\n%s", err, errOut)
	}
	if got := strings.TrimSpace(out); got != "orders_admin orders true" {
		t.Errorf("psql through the port-forward printed %q, want \"orders_admin orders true\"", got)
	}

	// Through PgBouncer: the pooler's Service, its certificate verified
	// against the same CA (CNPG's PgBouncer serves the cluster's server
	// certificate chain).
	out, errOut, err = kubectlSetpoint(t, ns, "psql", "app", "--database", "orders", "--role", "rw", "--pooler", "--",
		"-XAtc", "select current_user || ' ' || current_database()")
	if err != nil {
		t.Fatalf("kubectl setpoint psql --pooler: %v\n%s", err, errOut)
	}
	if got := strings.TrimSpace(out); got != "orders_rw orders" {
		t.Errorf("psql through the pooler printed %q, want \"orders_rw orders\"", got)
	}

	out, errOut, err = kubectlSetpoint(t, ns, "status", "shop", "-o", "json")
	if err != nil {
		t.Fatalf("kubectl setpoint status: %v\n%s", err, errOut)
	}
	var report inspect.ClusterReport
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("status -o json: %v\n%s", err, out)
	}
	in := report.Instances
	if report.Phase != string(pgv1.PhaseReady) || in.Primary != "shop-1" || in.Desired != 1 || in.Ready != 1 || in.CNPGPhase != "Cluster in healthy state" {
		t.Errorf("status -o json = phase %q, instances %+v; want Ready with real CNPG's healthy primary shop-1", report.Phase, in)
	}
	if len(report.Databases) != 1 || report.Databases[0].Name != "app" {
		t.Errorf("status lists databases %+v, want app", report.Databases)
	}

	checkReport(t, ns, "shop")
	checkRestart(t, ns, "shop")
}
