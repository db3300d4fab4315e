package e2e_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Invalid input the API cannot refuse reaches Failed with a precise reason
// and is not retried hot: only resyncs and real changes bring a pass.
func TestInvalidClusterFailsWithoutHotLoop(t *testing.T) {
	ns := kit.Namespace(t)
	op := startOperator(t, "op", "--leader-elect=false", "--namespace", ns,
		"--postgres-host-map", hostMap, "--resync-period", "2s")
	cases := []struct {
		name, class string
		s           pgv1.ClusterSettings
		reason      string
	}{
		{"no-class", "missing-" + ns, pgv1.ClusterSettings{}, "ClassNotFound"},
		{"no-backup-target", "e2e-" + ns, pgv1.ClusterSettings{Backup: &pgv1.BackupSpec{Schedule: "0 2 * * *"}}, "BackupTargetMissing"},
		// A CNPG-fixed parameter such as port is refused by the API server
		// now (test/contract TestClusterSettingsInputRules).
	}
	newClass(t, "e2e-"+ns, pgv1.ClusterSettings{Instances: ptr.To[int32](1)})
	for _, c := range cases {
		newCluster(t, ns, c.name, c.class, c.s, pgv1.DeletionPolicyDelete)
	}
	ext := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "no-external-secret", Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: "e2e-" + ns, PasswordConfig: &pgv1.ClusterPasswordConfig{
			SuperuserExternalSecretRef: &pgv1.LocalObjectReference{Name: "vault-superuser"}}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), ext, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct {
		name, class string
		s           pgv1.ClusterSettings
		reason      string
	}{"no-external-secret", "", pgv1.ClusterSettings{}, "SuperuserSecretNotFound"})
	for _, c := range cases {
		got := kit.WaitCluster(t, ns, c.name, pgv1.PhaseFailed, 30*time.Second)
		if r := readyMessage(got); !strings.HasPrefix(r, c.reason+": ") {
			t.Errorf("%s: Ready condition %q, want reason %s", c.name, r, c.reason)
		}
		if _, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), c.name, metav1.GetOptions{}); err == nil {
			t.Errorf("%s: a CNPG Cluster was created from an invalid spec", c.name)
		}
	}
	passes := op.metric(t, "setpoint_reconcile_total", "name", "postgrescluster")
	time.Sleep(6 * time.Second) // three resync periods
	got := op.metric(t, "setpoint_reconcile_total", "name", "postgrescluster") - passes
	// Three objects, one pass per resync each: about nine. A hot loop
	// would be hundreds.
	if got > 20 {
		t.Errorf("%v passes in 6s for 3 failed clusters: a hot loop", got)
	}
	if got == 0 {
		t.Errorf("no pass in 6s with a 2s resync: the hot-loop check proves nothing")
	}

	// Fixing the input recovers without restarting anything.
	newClass(t, "missing-"+ns, pgv1.ClusterSettings{Instances: ptr.To[int32](1)})
	kit.WaitCluster(t, ns, "no-class", pgv1.PhaseReady, 120*time.Second)
}
