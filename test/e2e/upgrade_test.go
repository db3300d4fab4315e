package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/jackc/pgx/v5"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// rolesInManagedRoles is the last commit whose setpoint kept every role of
// a PostgresDatabase in the CNPG Cluster's spec.managed.roles; the next
// one moved them to DatabaseRoles.
const rolesInManagedRoles = "bc20d34"

// An upgrade from the setpoint that kept roles in spec.managed.roles moves
// each role to a DatabaseRole with no role dropped, no password changed and
// no failed login: an application logs in and writes in a loop from before
// the old operator stops until after the new one is done.
func TestUpgradeMovesRolesToDatabaseRoles(t *testing.T) {
	prev := runPrevious(t, rolesInManagedRoles)
	ns := prev.ns
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	if got := setpointManagedRoles(t, ns); !slices.Equal(got, []string{"orders_admin", "orders_rw"}) {
		t.Fatalf("the previous setpoint's managed.roles: %v, want orders_admin and orders_rw", got)
	}
	password := kit.Password(t, ns, "app-orders-rw")
	execSQL(t, connectAs(t, ns, "app-orders-config", "app-orders-admin"),
		"CREATE TABLE writes (at timestamptz DEFAULT now()); GRANT INSERT, SELECT ON writes TO orders_rw")

	app := startWriter(t, ns, password)
	app.await(t, 5) // the application runs against the previous setpoint
	prev.upgrade(t)

	kit.Until(t, 120*time.Second, "both roles moved to applied DatabaseRoles", func(ctx context.Context) (bool, error) {
		if len(setpointManagedRoles(t, ns)) > 0 {
			return false, nil
		}
		for _, name := range []string{"shop.orders-admin", "shop.orders-rw"} {
			r, err := pg.CNPGV1().DatabaseRoles(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil || r.Status.Applied == nil || !*r.Status.Applied || r.Status.ObservedGeneration != r.Generation {
				return false, nil
			}
		}
		return true, nil
	})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 60*time.Second)
	app.await(t, app.OK()+5) // and goes on after the move
	app.Stop()
	if n := app.Failed(); n > 0 {
		t.Errorf("%d of %d logins and writes failed across the upgrade; last error: %v", n, n+app.OK(), app.LastErr())
	}
	if now := kit.Password(t, ns, "app-orders-rw"); now != password {
		t.Error("the upgrade changed the rw password")
	}
}

// runningPrevious is a namespace where a setpoint built from an earlier
// commit runs, with its CRDs installed, and has made PostgresCluster shop
// Ready.
type runningPrevious struct {
	ns   string
	args []string
	op   *operatorProc
}

// runPrevious builds the setpoint of commit, installs its CRDs (this
// build's come back when the test ends), starts it on a new namespace and
// waits until it made a one-instance PostgresCluster shop Ready.
func runPrevious(t *testing.T, commit string) runningPrevious {
	t.Helper()
	old := buildPrevious(t, commit)
	installCRDs(t, filepath.Join(old.dir, "manifests", "crd"))
	t.Cleanup(func() { installCRDs(t, filepath.Join(repoDir(t), "manifests", "crd")) })
	ns := kit.Namespace(t)
	args := []string{"--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s"}
	r := runningPrevious{ns: ns, args: args, op: startBinary(t, "previous", old.binary, args...)}
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15)})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	return r
}

// upgrade stops the earlier setpoint at once, as a lost Pod would, and
// starts this build on the same namespace with this build's CRDs (and
// extra flags of this build).
func (r runningPrevious) upgrade(t *testing.T, extra ...string) {
	t.Helper()
	r.op.signal(syscall.SIGKILL)
	<-r.op.done
	installCRDs(t, filepath.Join(repoDir(t), "manifests", "crd"))
	startOperator(t, "upgraded", append(slices.Clone(r.args), extra...)...)
}

// previous is a setpoint built from an earlier commit of this repository.
type previous struct{ dir, binary string }

// buildPrevious extracts commit from this repository's history and builds
// its operator. The module cache and build cache are shared with this
// build, so only what changed since is compiled.
func buildPrevious(t *testing.T, commit string) previous {
	t.Helper()
	dir := filepath.Join(env.Dir(), "setpoint-"+commit)
	p := previous{dir: dir, binary: filepath.Join(dir, "setpoint")}
	if _, err := os.Stat(p.binary); err == nil {
		return p
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("sh", "-c", fmt.Sprintf("git -C %q archive %s | tar -x -C %q", repoDir(t), commit, dir))
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("extract setpoint %s (a clone with history is needed): %v\n%s", commit, err, out)
	}
	build := exec.Command("go", "build", "-o", p.binary, "./cmd/setpoint")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build setpoint %s: %v\n%s", commit, err, out)
	}
	return p
}

// repoDir is the root of this repository.
func repoDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("find the repository: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// installCRDs applies setpoint's CRDs from dir with the field manager the
// environment installed them with, so fields one version has and the
// other lacks come and go with it.
func installCRDs(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("CRDs in %s: %v", dir, err)
	}
	if _, err := envtest.ApplyFiles(context.WithoutCancel(t.Context()), env.Config, "envtest", files...); err != nil {
		t.Fatalf("install CRDs from %s: %v", dir, err)
	}
}

// startBinary is startOperator for another build of setpoint.
func startBinary(t *testing.T, name, binary string, extra ...string) *operatorProc {
	t.Helper()
	saved := setpoint
	setpoint = binary
	defer func() { setpoint = saved }()
	return startOperator(t, name, extra...)
}

// setpointManagedRoles are the roles the CNPG Cluster shop lists in
// spec.managed.roles with setpoint's marker.
func setpointManagedRoles(t *testing.T, ns string) []string {
	t.Helper()
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("CNPG Cluster: %v", err)
	}
	var out []string
	if cl.Spec.Managed != nil {
		for _, r := range cl.Spec.Managed.Roles {
			if strings.HasPrefix(r.Comment, "managed by setpoint") {
				out = append(out, r.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// writer is an application that logs in as orders_rw and writes a row,
// over a new connection every 100 ms, until stopped.
type writer struct{ *testkit.App }

func startWriter(t *testing.T, ns, password string) writer {
	t.Helper()
	ca := kit.Secret(t, ns, "shop-ca").Data["ca.crt"]
	connector := postgres.NewConnector(postgres.NewHostMap(hostMap))
	target := postgres.Target{Namespace: ns, Cluster: "shop", Database: "orders", User: "orders_rw", Password: password, CACert: ca}
	w := writer{testkit.StartApp(context.WithoutCancel(t.Context()), 100*time.Millisecond, func(ctx context.Context) error {
		return testkit.WriteOnce(ctx, 10*time.Second, func(ctx context.Context) (*pgx.Conn, error) { return connector.Connect(ctx, target) })
	})}
	t.Cleanup(w.Stop)
	return w
}

// await waits until n writes have succeeded.
func (w writer) await(t *testing.T, n int64) {
	t.Helper()
	kit.Until(t, 60*time.Second, fmt.Sprintf("%d successful writes", n), func(context.Context) (bool, error) {
		if w.OK() == 0 && w.Failed() > 0 {
			return false, errors.Join(errors.New("the application cannot write at all"), w.LastErr())
		}
		return w.OK() >= n, nil
	})
}
