package cnpgsim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

func TestPoolerAndScheduledBackup(t *testing.T) {
	ns := newNamespace(t)
	newCluster(t, ns, "web")
	instances := int32(2)
	pooler := &cnpgv1.Pooler{
		ObjectMeta: metav1.ObjectMeta{Name: "web-pooler-rw", Namespace: ns},
		Spec: cnpgv1.PoolerSpec{
			Cluster: cnpgv1.LocalObjectReference{Name: "web"}, Type: cnpgv1.PoolerTypeRW, Instances: &instances,
			PgBouncer: &cnpgv1.PgBouncerSpec{PoolMode: "transaction"},
		},
	}
	if _, err := pg.CNPGV1().Poolers(ns).Create(t.Context(), pooler, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatalf("create pooler: %v", err)
	}
	backup := &cnpgv1.ScheduledBackup{
		ObjectMeta: metav1.ObjectMeta{Name: "web-daily", Namespace: ns},
		Spec: cnpgv1.ScheduledBackupSpec{
			Schedule: "0 0 2 * * *", Cluster: cnpgv1.LocalObjectReference{Name: "web"},
			Method: cnpgv1.BackupMethodPlugin, PluginConfiguration: &cnpgv1.BackupPluginConfiguration{Name: "barman-cloud.cloudnative-pg.io"},
		},
	}
	if _, err := pg.CNPGV1().ScheduledBackups(ns).Create(t.Context(), backup, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatalf("create scheduled backup: %v", err)
	}
	waitHealthy(t, ns, "web")

	t.Run("pooler status and service", func(t *testing.T) {
		eventually(t, 10*time.Second, "pooler status", func() error {
			p, err := pg.CNPGV1().Poolers(ns).Get(t.Context(), "web-pooler-rw", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if p.Status.Instances != 2 || p.Status.Phase != "active" {
				return fmt.Errorf("status = %+v", p.Status)
			}
			return nil
		})
		if _, err := kube.CoreV1().Services(ns).Get(t.Context(), "web-pooler-rw", metav1.GetOptions{}); err != nil {
			t.Errorf("pooler service: %v", err)
		}
		// PgBouncer's Deployment, as CNPG makes it: the Pooler's, with
		// CNPG's labels, every replica available.
		d, err := kube.AppsV1().Deployments(ns).Get(t.Context(), "web-pooler-rw", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("PgBouncer Deployment: %v", err)
		}
		ref := metav1.GetControllerOf(d)
		if ref == nil || ref.Kind != "Pooler" || ref.Name != "web-pooler-rw" || d.Labels["cnpg.io/podRole"] != "pooler" || d.Labels["cnpg.io/cluster"] != "web" {
			t.Errorf("PgBouncer Deployment owner %+v, labels %v", ref, d.Labels)
		}
		if *d.Spec.Replicas != 2 || d.Status.AvailableReplicas != 2 || d.Status.ObservedGeneration != d.Generation {
			t.Errorf("PgBouncer Deployment replicas %d, status %+v", *d.Spec.Replicas, d.Status)
		}
	})
	t.Run("pooler service name reaches the server over verified TLS", func(t *testing.T) {
		// As on real CNPG, the server certificate (which PgBouncer serves)
		// names the Cluster's Services only: verify-full to the pooler's
		// name is refused...
		conn, err := dial(t.Context(), readHostMap(t), ns, "web-pooler-rw", "web", "postgres", "su-web", "postgres")
		if err == nil {
			_ = conn.Close(t.Context())
			t.Fatal("the pooler's name verified against a certificate that does not name it")
		}
		if !strings.Contains(err.Error(), "certificate is valid for web-rw") {
			t.Fatalf("connect through the pooler name: %v, want a certificate that names web-rw but not the pooler", err)
		}
		// ...until spec.certificates.serverAltDNSNames adds it.
		names := `{"spec":{"certificates":{"serverAltDNSNames":["web-pooler-rw.` + ns + `.svc"]}}}`
		if _, err := pg.CNPGV1().Clusters(ns).Patch(t.Context(), "web", types.MergePatchType, []byte(names), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, 10*time.Second, "connect through the pooler name", func() error {
			conn, err := dial(t.Context(), readHostMap(t), ns, "web-pooler-rw", "web", "postgres", "su-web", "postgres")
			if err != nil {
				return err
			}
			return conn.Close(t.Context())
		})
	})
	t.Run("scheduled backup status", func(t *testing.T) {
		eventually(t, 10*time.Second, "scheduled backup status", func() error {
			sb, err := pg.CNPGV1().ScheduledBackups(ns).Get(t.Context(), "web-daily", metav1.GetOptions{})
			if err != nil {
				return err
			}
			st := sb.Status
			if st.LastCheckTime == nil || st.NextScheduleTime == nil {
				return fmt.Errorf("status = %+v", st)
			}
			if next := st.NextScheduleTime.UTC(); next.Hour() != 2 || next.Minute() != 0 || !next.After(st.LastCheckTime.Time) {
				return fmt.Errorf("next = %s", next)
			}
			return nil
		})
	})
}
