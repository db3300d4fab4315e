package e2e_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// passwords maps every Secret with a password in ns to it.
func passwords(t *testing.T, ns string) map[string]string {
	t.Helper()
	list, err := kube.CoreV1().Secrets(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=setpoint"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range list.Items {
		out[s.Name] = string(s.Data["password"])
	}
	return out
}

func startWorkload(t *testing.T, ns string, dbs int) {
	t.Helper()
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1)})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	for i := range dbs {
		kit.CreateDatabase(t, ns, fmt.Sprintf("app%d", i), "shop", pgv1.DatabaseSpec{Name: fmt.Sprintf("db%d", i)})
	}
}

func waitWorkload(t *testing.T, ns string, dbs int) {
	t.Helper()
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	for i := range dbs {
		kit.WaitDatabase(t, ns, fmt.Sprintf("app%d", i), pgv1.PhaseReady, 120*time.Second)
	}
}

// checkNoDuplicates counts what exists: exactly one of each child.
func checkNoDuplicates(t *testing.T, ns string, dbs int) {
	t.Helper()
	secrets := passwords(t, ns)
	// The superuser's and the monitor's, the client CA, the replication
	// certificate and the server CA copy, then admin and rw per database,
	// each with its binding Secret.
	if want := 5 + 4*dbs; len(secrets) != want {
		t.Errorf("%d managed Secrets, want %d: %v", len(secrets), want, secrets)
	}
	list, err := pg.CNPGV1().Databases(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil || len(list.Items) != dbs {
		t.Errorf("%d CNPG Databases, want %d (%v)", len(list.Items), dbs, err)
	}
	roles, err := pg.CNPGV1().DatabaseRoles(ns).List(t.Context(), metav1.ListOptions{})
	if want := 2 + 2*dbs; err != nil || len(roles.Items) != want { // the monitor's, the certificate group's, then admin and rw per database
		t.Errorf("%d DatabaseRoles, want %d (%v)", len(roles.Items), want, err)
	}
}

// The operator killed mid-pipeline converges after a restart, with no
// duplicate object and no regenerated password.
func TestOperatorKilledMidPipeline(t *testing.T) {
	ns := kit.Namespace(t)
	args := []string{"--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap}
	op := startOperator(t, "first", args...)
	const dbs = 4
	startWorkload(t, ns, dbs)
	// Kill as soon as some children exist but not everything is Ready.
	kit.Until(t, 60*time.Second, "some database Secrets", func(ctx context.Context) (bool, error) {
		return len(passwords(t, ns)) >= 3, nil
	})
	op.signal(syscall.SIGKILL)
	<-op.done
	before := passwords(t, ns)
	t.Logf("killed with %d Secrets created", len(before))

	startOperator(t, "second", args...)
	waitWorkload(t, ns, dbs)
	after := passwords(t, ns)
	for name, p := range before {
		if after[name] != p {
			t.Errorf("Secret %s got a new password after the restart", name)
		}
	}
	checkNoDuplicates(t, ns, dbs)
	connectAs(t, ns, "app0-db0-config", "app0-db0-rw")
}

// The API server restarted while the operator converges: watches recover,
// nothing is duplicated, and later changes are still seen.
func TestAPIServerRestartUnderLoad(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	const dbs = 4
	startWorkload(t, ns, dbs)
	kit.Until(t, 60*time.Second, "some database Secrets", func(ctx context.Context) (bool, error) {
		return len(passwords(t, ns)) >= 3, nil
	})
	if err := env.RestartAPIServer(t.Context(), 2*time.Second); err != nil {
		t.Fatalf("restart API server: %v", err)
	}
	waitWorkload(t, ns, dbs)
	checkNoDuplicates(t, ns, dbs)
	// A change after the restart still arrives through the new watches.
	kit.CreateDatabase(t, ns, "late", "shop", pgv1.DatabaseSpec{Name: "late"})
	kit.WaitDatabase(t, ns, "late", pgv1.PhaseReady, 120*time.Second)
}
