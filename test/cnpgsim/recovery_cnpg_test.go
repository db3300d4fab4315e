package cnpgsim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/test/envtest"
)

// What the stand-in reports of a failed recovery is what CloudNativePG
// v1.30.0 writes, word for word: each string below is checked against
// CNPG's own source (its Go module), so a CNPG upgrade that rewords one
// fails here rather than in setpoint's mapping.
func TestRecoveryStatusIsCNPGs(t *testing.T) {
	dir, err := envtest.CNPGSourceDir()
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) string {
		data, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	types, controller := read("api/v1/cluster_types.go"), read("internal/controller/cluster_controller.go")
	status, jobs := read("internal/controller/cluster_status.go"), read("pkg/specs/jobs.go")
	pvcs := read("pkg/reconciler/persistentvolumeclaim/status.go")
	for _, c := range []struct{ file, source, want string }{
		{"api/v1/cluster_types.go", types, `PhaseUnrecoverable = "` + PhaseUnrecoverable + `"`},
		{"api/v1/cluster_types.go", types, `PhaseFailurePlugin = "` + PhaseFailurePlugin + `"`},
		{"api/v1/cluster_types.go", types, `PhaseFirstPrimary = "` + PhaseSettingUpPrimary + `"`},
		{"api/v1/cluster_types.go", types, `ConditionInitialized ClusterConditionType = "` + conditionInitialized + `"`},
		{"api/v1/cluster_types.go", types, `BootstrapCompleted ConditionReason = "BootstrapCompleted"`},
		{"api/v1/cluster_types.go", types, `BootstrapPending ConditionReason = "BootstrapPending"`},
		{"internal/controller/cluster_status.go", status, `Message: "Cluster has been bootstrapped"`},
		{"internal/controller/cluster_status.go", status, `Message: "Cluster has not been bootstrapped yet"`},
		// Initialized turns True with status.instances, which counts the
		// instances' PVCs, a failed full-recovery Job's included.
		{"internal/controller/cluster_status.go", status, `if cluster.Status.Instances > 0 {`},
		{"pkg/reconciler/persistentvolumeclaim/status.go", pvcs, `cluster.Status.Instances = len(sortedInstances)`},
		// The failed Job's reason, registered with PhaseUnrecoverable.
		{"internal/controller/cluster_controller.go", controller, `"Instance creation failed for the following jobs: %s. "+`},
		{"internal/controller/cluster_controller.go", controller, `"Check the job logs to investigate the cause of the failure."`},
		{"internal/controller/cluster_controller.go", controller, `r.RegisterPhase(ctx, cluster, apiv1.PhaseUnrecoverable, reason)`},
		{"internal/controller/cluster_controller.go", controller, `fmt.Sprintf("Encountered an error while interacting with plugins: %s", err.Error())`},
		// The Job's name: <instance>-<role>, instance <cluster>-1 first.
		{"pkg/specs/jobs.go", jobs, `jobRoleFullRecovery     jobRole = "full-recovery"`},
		{"pkg/specs/jobs.go", jobs, `return fmt.Sprintf("%s-%s", instanceName, role)`},
	} {
		if !strings.Contains(c.source, c.want) {
			t.Errorf("CNPG's %s does not contain %s", c.file, c.want)
		}
	}
	want := "Instance creation failed for the following jobs: shop-1-full-recovery. Check the job logs to investigate the cause of the failure."
	if got := jobFailedReason("shop"); got != want {
		t.Errorf("jobFailedReason = %q, want %q", got, want)
	}
	hook := (&errPluginHook{objectStore: "gone"}).Error()
	if hook != `rpc error: code = Unknown desc = objectstores.barmancloud.cnpg.io "gone" not found` {
		t.Errorf("plugin hook error = %q", hook)
	}
}
