package realcnpg

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
)

// promote asks CNPG for a switchover to instance as `kubectl cnpg promote`
// does (internal/cmd/plugin/promote in CNPG's repository): a merge patch
// of the Cluster's status, guarded by its resourceVersion, that sets
// targetPrimary and its timestamp, the phase "Switchover in progress" with
// its reason, and the Ready condition False. Only those fields are sent:
// setpoint's Cluster type holds a subset of CNPG's status, so an update
// of the whole status would drop the rest.
func promote(t *testing.T, ns, cluster, instance string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), cluster, metav1.GetOptions{})
		if err != nil {
			return err
		}
		conds := append([]metav1.Condition(nil), cl.Status.Conditions...)
		apimeta.SetStatusCondition(&conds, metav1.Condition{
			Type: "Ready", Status: metav1.ConditionFalse, Reason: "ClusterIsNotReady", Message: "Cluster Is Not Ready",
		})
		patch, err := json.Marshal(map[string]any{
			"metadata": map[string]any{"resourceVersion": cl.ResourceVersion},
			"status": map[string]any{
				"targetPrimary":          instance,
				"targetPrimaryTimestamp": time.Now().Format(metav1.RFC3339Micro),
				"phase":                  "Switchover in progress",
				"phaseReason":            fmt.Sprintf("Switching over to %v", instance),
				"conditions":             conds,
			},
		})
		if err != nil {
			return err
		}
		_, err = pg.CNPGV1().Clusters(ns).Patch(t.Context(), cluster, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
		return err
	})
	if err != nil {
		t.Fatalf("promote %s: %v", instance, err)
	}
}
