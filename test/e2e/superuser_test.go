package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// TestSuperuserAccess: a new cluster has no superuser (CNPG's default):
// no superuser Secret, postgres cannot log in over the network, and
// setpoint's checks and the collector run as the setpoint_monitor role.
// superuserAccess: true turns it on, with a generated Secret; false turns
// it off again and the Secret goes.
func TestSuperuserAccess(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "superuser-op", "--leader-elect=false", "--namespace", ns,
		"--postgres-host-map", hostMap, "--postgres-sample-interval", sampleInterval.String())
	class := "e2e-" + ns
	newClassAsGiven(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15)})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{PostgreSQLConfig: map[string]string{"work_mem": "8MB"}}, pgv1.DeletionPolicyDelete)
	c := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)

	var su string // the superuser password while access was on
	t.Run("off by default", func(t *testing.T) {
		expectNoSuperuser(t, ns, c)
		testkit.ExpectReason(t, c.Status.Conditions, pgv1.ConditionProvisionerReady, "ClusterHealthy", "; pg_hba.conf not checked: superuser access is off")
		testkit.ExpectReason(t, c.Status.Conditions, pgv1.ConditionMonitorReady, "MonitorRoleApplied", `"shop.setpoint-monitor"`)
		// The monitor logs in, reads what the checks read, and is no
		// superuser.
		conn := connectMonitor(t, ns, "shop")
		var super, monitor bool
		var datname string
		if err := conn.QueryRow(t.Context(), `SELECT rolsuper, pg_has_role('pg_monitor', 'member'),
			(SELECT datname FROM pg_database WHERE datname = 'postgres') FROM pg_roles WHERE rolname = current_user`).Scan(&super, &monitor, &datname); err != nil {
			t.Fatal(err)
		}
		if super || !monitor || datname != "postgres" {
			t.Errorf("setpoint_monitor: superuser %v, pg_monitor %v, sees pg_database %q", super, monitor, datname)
		}
		// The collector samples as the monitor.
		kit.Until(t, withinTwoSamples, "status.postgres", func(ctx context.Context) (bool, error) {
			got, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
			return err == nil && got.Status.Postgres != nil && got.Status.Postgres.WALBytes > 0, err
		})
	})

	t.Run("turned on", func(t *testing.T) {
		kit.UpdateCluster(t, ns, "shop", func(pc *pgv1.PostgresCluster) { pc.Spec.SuperuserAccess = ptr.To(true) })
		kit.Until(t, 90*time.Second, "superuser Secret published", func(ctx context.Context) (bool, error) {
			got, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
			return err == nil && got.Status.Phase == pgv1.PhaseReady && got.Status.ObservedGeneration == got.Generation &&
				got.Status.Resources != nil && got.Status.Resources.SuperUserSecretRef != nil, err
		})
		cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
		if err != nil || !ptr.Deref(cl.Spec.EnableSuperuserAccess, false) || cl.Spec.SuperuserSecret == nil || cl.Spec.SuperuserSecret.Name != "shop-superuser" {
			t.Fatalf("CNPG Cluster with access on: %v %+v", err, cl.Spec)
		}
		su = superuserPassword(t, ns)
		kit.Until(t, 30*time.Second, "postgres logs in", func(context.Context) (bool, error) {
			_, err := kit.Login(t, ns, "shop", "postgres", "postgres", su)
			return err == nil, nil
		})
		// With the superuser the pg_hba.conf check runs again: a
		// parameter change makes the provisioner look.
		kit.UpdateCluster(t, ns, "shop", func(pc *pgv1.PostgresCluster) { pc.Spec.PostgreSQLConfig["work_mem"] = "16MB" })
		kit.Until(t, 90*time.Second, "checked with pg_hba.conf", func(ctx context.Context) (bool, error) {
			got, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
			if err != nil || got.Status.Phase != pgv1.PhaseReady || got.Status.ObservedGeneration != got.Generation {
				return false, err
			}
			msg := condition(t, got.Status.Conditions, pgv1.ConditionProvisionerReady).Message
			return !strings.Contains(msg, "pg_hba.conf not checked"), nil
		})
	})

	t.Run("turned off again", func(t *testing.T) {
		kit.UpdateCluster(t, ns, "shop", func(pc *pgv1.PostgresCluster) { pc.Spec.SuperuserAccess = ptr.To(false) })
		kit.Gone(t, "superuser Secret", func(ctx context.Context) error {
			_, err := kube.CoreV1().Secrets(ns).Get(ctx, "shop-superuser", metav1.GetOptions{})
			return err
		})
		c := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 90*time.Second)
		expectNoSuperuser(t, ns, c)
		if _, err := kit.Login(t, ns, "shop", "postgres", "postgres", su); err == nil {
			t.Error("postgres logs in with its old password after access was turned off")
		}
	})

	t.Run("an external superuser Secret with access off is refused", func(t *testing.T) {
		_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), &pgv1.PostgresCluster{
			ObjectMeta: metav1.ObjectMeta{Name: "contradiction", Namespace: ns},
			Spec: pgv1.PostgresClusterSpec{Class: class, ClusterSettings: pgv1.ClusterSettings{SuperuserAccess: ptr.To(false)},
				PasswordConfig: &pgv1.ClusterPasswordConfig{SuperuserExternalSecretRef: &pgv1.LocalObjectReference{Name: "vault-su"}}},
		}, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "passwordConfig.superuserExternalSecretRef is a superuser Secret, and superuserAccess is false") {
			t.Fatalf("create: %v, want the CRD's refusal", err)
		}
	})
}

// expectNoSuperuser checks a cluster without superuser access: no Secret,
// none named in status or the connection ConfigMap, none in the CNPG
// Cluster, and postgres cannot log in.
func expectNoSuperuser(t *testing.T, ns string, c *pgv1.PostgresCluster) {
	t.Helper()
	if _, err := kube.CoreV1().Secrets(ns).Get(t.Context(), c.Name+"-superuser", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("superuser Secret: %v, want none", err)
	}
	r := c.Status.Resources
	if r == nil || r.SuperUserSecretRef != nil || r.MonitorSecretRef == nil || r.MonitorSecretRef.Name != c.Name+"-monitor" {
		t.Errorf("status.resources = %+v, want the monitor's Secret and no superuser's", r)
	}
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), c.Name+"-connection", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cm.Data["superuser-secret"]; ok {
		t.Errorf("connection ConfigMap names a superuser Secret: %v", cm.Data)
	}
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), c.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Spec.EnableSuperuserAccess == nil || *cl.Spec.EnableSuperuserAccess || cl.Spec.SuperuserSecret != nil {
		t.Errorf("CNPG Cluster: enableSuperuserAccess %v, superuserSecret %+v", cl.Spec.EnableSuperuserAccess, cl.Spec.SuperuserSecret)
	}
	// CNPG sets postgres's password to NULL: no password logs in.
	if _, err := kit.Login(t, ns, c.Name, "postgres", "postgres", "any-password"); err == nil {
		t.Error("postgres logs in over the network without superuser access")
	}
}
