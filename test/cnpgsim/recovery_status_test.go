package cnpgsim_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

const (
	phaseUnrecoverable = "Cluster is unrecoverable and needs manual intervention"
	phasePluginFailure = "Cluster cannot proceed to reconciliation due to an error while interacting with plugins"
)

// recoveryJobFailed checks a Cluster against what CNPG 1.30 reports when
// its full-recovery Job failed: unrecoverable, the Job named, not Ready,
// no instance ran — yet Initialized, by the Job's PVC.
func recoveryJobFailed(c *cnpgv1.Cluster) error {
	want := "Instance creation failed for the following jobs: " + c.Name + "-1-full-recovery. " +
		"Check the job logs to investigate the cause of the failure."
	if c.Status.Phase != phaseUnrecoverable || c.Status.PhaseReason != want {
		return fmt.Errorf("phase %q (%s), want %q (%s)", c.Status.Phase, c.Status.PhaseReason, phaseUnrecoverable, want)
	}
	return notBootstrapped(c, metav1.ConditionTrue)
}

// notBootstrapped checks a Cluster no instance of which ran: not Ready, no
// currentPrimary, and Initialized as given (True once a PVC exists).
func notBootstrapped(c *cnpgv1.Cluster, initialized metav1.ConditionStatus) error {
	if meta.IsStatusConditionTrue(c.Status.Conditions, "Ready") {
		return fmt.Errorf("Ready True in phase %q", c.Status.Phase)
	}
	if c.Status.CurrentPrimary != "" {
		return fmt.Errorf("currentPrimary %q, but no instance ran", c.Status.CurrentPrimary)
	}
	if cond := meta.FindStatusCondition(c.Status.Conditions, "Initialized"); cond == nil || cond.Status != initialized {
		return fmt.Errorf("Initialized = %+v, want %s", cond, initialized)
	}
	return nil
}

// expectStatusStill proves that a Cluster's status holds still: three
// times its -rw Service is deleted and waited for until the stand-in has
// created it again (so a sync ran), and the Cluster was not written at
// all meanwhile (same resourceVersion). The old stand-in wrote "Failing
// over" and then the failure again on every sync, each write waking the
// next.
func expectStatusStill(t *testing.T, ns, name string) {
	t.Helper()
	before := getCluster(t, ns, name)
	for i := range 3 {
		svc, err := kube.CoreV1().Services(ns).Get(t.Context(), name+"-rw", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get Service: %v", err)
		}
		if err := kube.CoreV1().Services(ns).Delete(t.Context(), svc.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete Service: %v", err)
		}
		eventually(t, 30*time.Second, fmt.Sprintf("Service %s created again (%d)", svc.Name, i), func() error {
			again, err := kube.CoreV1().Services(ns).Get(t.Context(), svc.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if again.UID == svc.UID {
				return fmt.Errorf("still the deleted Service")
			}
			return nil
		})
	}
	if after := getCluster(t, ns, name); after.ResourceVersion != before.ResourceVersion {
		t.Fatalf("Cluster written during 3 syncs of a failed recovery: phase %q → %q (%s)",
			before.Status.Phase, after.Status.Phase, after.Status.PhaseReason)
	}
}

// A recovery whose ObjectStore does not exist is reported as CNPG reports
// the barman-cloud plugin's failing hook, retried (not written again)
// until the ObjectStore exists; then the recovery goes ahead — here to a
// source with no backups, whose recovery Job fails.
func TestRecoveryFromAMissingObjectStore(t *testing.T) {
	ns := newNamespace(t)
	newCluster(t, ns, "orphan", func(c *cnpgv1.Cluster) {
		c.Spec.Bootstrap = &cnpgv1.BootstrapConfiguration{Recovery: &cnpgv1.BootstrapRecovery{Source: "origin"}}
		c.Spec.ExternalClusters = []cnpgv1.ExternalCluster{{Name: "origin", PluginConfiguration: &cnpgv1.PluginConfiguration{
			Name: barmanPlugin, Parameters: map[string]string{"barmanObjectName": "later", "serverName": "src"},
		}}}
	})
	c := waitPhase(t, ns, "orphan", phasePluginFailure)
	want := `Encountered an error while interacting with plugins: rpc error: code = Unknown desc = objectstores.barmancloud.cnpg.io "later" not found`
	if c.Status.PhaseReason != want {
		t.Fatalf("phaseReason = %q, want %q", c.Status.PhaseReason, want)
	}
	if err := notBootstrapped(c, metav1.ConditionFalse); err != nil {
		t.Fatal(err)
	}
	expectStatusStill(t, ns, "orphan")

	newObjectStore(t, ns, "later", "s3://backups/later")
	eventually(t, time.Minute, "recovery Job failed once the ObjectStore exists", func() error {
		return recoveryJobFailed(getCluster(t, ns, "orphan"))
	})
	if log := sim.RecoveryLog(ns, "orphan"); log == "" {
		t.Fatal("no reason in the recovery Job's log")
	}
	expectStatusStill(t, ns, "orphan")
}
