package controller

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The phase gauge is 1 for the record's phase alone, the transition gauge
// its time; both go with the record or the cluster, and a nil
// *UpgradeMetrics records nothing.
func TestUpgradeGaugesFollowTheRecord(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewUpgradeMetrics(reg)
	key := types.NamespacedName{Namespace: "ns", Name: "shop"}
	at := metav1.Unix(1796677200, 0)
	for _, phase := range []pgv1.UpgradePhase{pgv1.UpgradeBackingUp, pgv1.UpgradeFailed} {
		m.Set(key, &pgv1.MajorUpgradeStatus{From: 15, To: 17, Phase: phase, LastTransitionTime: at})
		for _, p := range pgv1.UpgradePhases {
			want := 0.0
			if p == phase {
				want = 1
			}
			if got := testutil.ToFloat64(m.phase.WithLabelValues("ns", "shop", string(p))); got != want {
				t.Errorf("record in %s: phase %s = %v, want %v", phase, p, got, want)
			}
		}
		if got := testutil.ToFloat64(m.transition.WithLabelValues("ns", "shop")); got != float64(at.Unix()) {
			t.Errorf("transition %v, want %v", got, float64(at.Unix()))
		}
	}
	m.Forget(key)
	if n := testutil.CollectAndCount(m.phase) + testutil.CollectAndCount(m.transition); n != 0 {
		t.Errorf("%d series after Forget, want none", n)
	}
	var none *UpgradeMetrics
	none.Set(key, &pgv1.MajorUpgradeStatus{Phase: pgv1.UpgradeFailed})
}
