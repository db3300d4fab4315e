package realcnpg

import (
	"strings"
	"testing"

	"k8s.io/client-go/util/retry"
)

// promote asks CNPG for a switchover to instance through the plugin,
// `kubectl setpoint promote` (ADR-0018): a merge patch of the Cluster's
// status, guarded by its resourceVersion, as `kubectl cnpg promote` makes
// it. A status CNPG changed between the plugin's read and its patch
// refuses the patch (409): the plugin is run again then, as a user would.
func promote(t *testing.T, ns, cluster, instance string) {
	t.Helper()
	var out, errOut string
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		var err error
		out, errOut, err = kubectlSetpoint(t, ns, "promote", cluster, instance)
		return err
	})
	if err != nil {
		t.Fatalf("kubectl setpoint promote %s %s: %v\n%s", cluster, instance, err, errOut)
	}
	if !strings.Contains(out, "switchover to "+instance+" requested") {
		t.Fatalf("kubectl setpoint promote printed %q", out)
	}
}
