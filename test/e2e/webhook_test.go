package e2e_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A spec setpoint's CRD accepts but CNPG's own validating webhook refuses
// (wal_log_hints off with replicas: pg_rewind needs it) shows as Failed
// with CNPG's message, never as endless Configuring, and is not created;
// fixing it recovers.
func TestCNPGWebhookRefusalIsFailed(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "webhook-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](2)})
	newCluster(t, ns, "hints", class, pgv1.ClusterSettings{PostgreSQLConfig: map[string]string{"wal_log_hints": "off"}}, pgv1.DeletionPolicyDelete)

	c := kit.WaitCluster(t, ns, "hints", pgv1.PhaseFailed, 60*time.Second)
	msg := readyMessage(c)
	if !strings.HasPrefix(msg, "ClusterSpecInvalid: ") ||
		!strings.Contains(msg, `admission webhook "vcluster.cnpg.io" denied the request`) ||
		!strings.Contains(msg, "spec.postgresql.parameters.wal_log_hints") {
		t.Fatalf("Ready = %q, want ClusterSpecInvalid with CNPG's webhook message on wal_log_hints", msg)
	}
	if _, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "hints", metav1.GetOptions{}); err == nil {
		t.Fatal("a CNPG Cluster exists although CNPG's webhook refused it")
	}

	kit.UpdateCluster(t, ns, "hints", func(c *pgv1.PostgresCluster) { c.Spec.PostgreSQLConfig = map[string]string{"wal_log_hints": "on"} })
	kit.WaitCluster(t, ns, "hints", pgv1.PhaseReady, 120*time.Second)
}
