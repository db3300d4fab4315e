package cluster

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// applied is the CNPG Cluster spec as the API server would store our
// apply of pl: what placementMatches reads back.
func applied(t *testing.T, pl *pgv1.PlacementSpec) cnpgv1.ClusterSpec {
	t.Helper()
	spec := cnpgac.ClusterSpec().WithInstances(2)
	withPlacement(spec, pl)
	return storedAs[cnpgv1.ClusterSpec](t, spec)
}

// storedAs is an apply configuration as the API server stores it, read
// back into the typed subset the controller compares.
func storedAs[T any](t *testing.T, ac any) T {
	t.Helper()
	b, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPlacementGoesToCNPGsFields(t *testing.T) {
	spread := corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"cnpg.io/cluster": "shop"}}}
	pl := &pgv1.PlacementSpec{AntiAffinity: pgv1.AntiAffinityRequired, TopologyKey: "topology.kubernetes.io/zone",
		NodeSelector: map[string]string{"pool": "db"}, PriorityClassName: "databases",
		Tolerations:               []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}},
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{spread}}
	s := applied(t, pl)
	a := s.Affinity
	if a == nil || a.EnablePodAntiAffinity == nil || !*a.EnablePodAntiAffinity || a.PodAntiAffinityType != "required" ||
		a.TopologyKey != "topology.kubernetes.io/zone" || a.NodeSelector["pool"] != "db" || len(a.Tolerations) != 1 {
		t.Errorf("affinity %+v, want required anti-affinity by zone, the node selector and the toleration", a)
	}
	if len(s.TopologySpreadConstraints) != 1 || s.PriorityClassName != "databases" {
		t.Errorf("spread %v, priority class %q", s.TopologySpreadConstraints, s.PriorityClassName)
	}
	if !placementMatches(s, pl) {
		t.Error("the applied spec does not match the placement it came from")
	}
	s.Affinity.NodeSelector = map[string]string{"pool": "other"}
	if placementMatches(s, pl) {
		t.Error("a node selector changed by hand is not drift")
	}

	if off := applied(t, &pgv1.PlacementSpec{AntiAffinity: pgv1.AntiAffinityDisabled}); off.Affinity == nil ||
		off.Affinity.EnablePodAntiAffinity == nil || *off.Affinity.EnablePodAntiAffinity {
		t.Errorf("Disabled gives affinity %+v, want enablePodAntiAffinity false", off.Affinity)
	}
	// Only the priority class: CloudNativePG keeps its default affinity.
	if only := applied(t, &pgv1.PlacementSpec{PriorityClassName: "databases"}); only.Affinity != nil {
		t.Errorf("affinity %+v for a placement that sets none", only.Affinity)
	}
	if none := applied(t, nil); none.Affinity != nil || none.PriorityClassName != "" || !placementMatches(none, nil) {
		t.Errorf("no placement gave %+v", none)
	}
}
