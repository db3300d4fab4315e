package e2e_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// After CNPG rotates a cluster's CA, both controllers verify Postgres
// against the new one without a restart: a verification failure makes them
// read <cluster>-ca again.
func TestCARotation(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	old, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "shop-ca", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.RotateCA(t.Context(), ns, "shop"); err != nil {
		t.Fatal(err)
	}
	kit.Until(t, 30*time.Second, "CA Secret rotated", func(ctx context.Context) (bool, error) {
		s, err := kube.CoreV1().Secrets(ns).Get(ctx, "shop-ca", metav1.GetOptions{})
		return err == nil && !bytes.Equal(s.Data["ca.crt"], old.Data["ca.crt"]), err
	})
	// The server now presents the new certificate.
	kit.Until(t, 30*time.Second, "server serves the new certificate", func(ctx context.Context) (bool, error) {
		_, err := kit.Login(t, ns, "shop", "postgres", "postgres", superuserPassword(t, ns))
		return err == nil, nil
	})

	// The cluster controller must talk to Postgres to confirm a parameter.
	kit.UpdateCluster(t, ns, "shop", func(pc *pgv1.PostgresCluster) {
		pc.Spec.PostgreSQLConfig = map[string]string{"work_mem": "8MB"}
	})
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 90*time.Second)
	// The database controller must grant on a new database.
	kit.CreateDatabase(t, ns, "app2", "shop", pgv1.DatabaseSpec{Name: "items"})
	kit.WaitDatabase(t, ns, "app2", pgv1.PhaseReady, 90*time.Second)
	connectAs(t, ns, "app2-items-config", "app2-items-rw")
}

func superuserPassword(t *testing.T, ns string) string {
	t.Helper()
	s, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "shop-superuser", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(s.Data["password"])
}
