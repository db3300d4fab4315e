package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// appliedPooler is the Pooler spec as the API server would store our
// apply for pooler shop-pooler-rw with placement pl.
func appliedPooler(t *testing.T, pl *pgv1.PlacementSpec) cnpgv1.PoolerSpec {
	t.Helper()
	spec := cnpgac.PoolerSpec().WithType(cnpgv1.PoolerTypeRW)
	withPoolerTemplate(spec, poolerPodSpec("shop-pooler-rw", pl))
	return storedAs[cnpgv1.PoolerSpec](t, spec)
}

func TestPoolerPlacementGoesToThePodTemplate(t *testing.T) {
	dedicated := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}
	pl := &pgv1.PlacementSpec{AntiAffinity: pgv1.AntiAffinityRequired, NodeSelector: map[string]string{"pool": "edge"},
		Tolerations: []corev1.Toleration{dedicated}, PriorityClassName: "poolers"}
	s := appliedPooler(t, pl)
	if s.Template == nil {
		t.Fatal("no template for a placement")
	}
	ps := s.Template.Spec
	if len(ps.Containers) != 1 || ps.Containers[0].Name != "pgbouncer" {
		t.Errorf("containers %+v, want only pgbouncer named (CloudNativePG's schema requires the list)", ps.Containers)
	}
	a := ps.Affinity
	if a == nil || a.PodAntiAffinity == nil || len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("affinity %+v, want one required anti-affinity term", a)
	}
	term := a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	if term.TopologyKey != corev1.LabelHostname || term.LabelSelector.MatchLabels["cnpg.io/poolerName"] != "shop-pooler-rw" {
		t.Errorf("anti-affinity term %+v, want this pooler's Pods apart per node", term)
	}
	if ps.NodeSelector["pool"] != "edge" || len(ps.Tolerations) != 1 || ps.PriorityClassName != "poolers" {
		t.Errorf("pod spec %+v", ps)
	}
	want := poolerPodSpec("shop-pooler-rw", pl)
	if !poolerTemplateMatches(s.Template, want) {
		t.Error("the applied template does not match the placement it came from")
	}
	s.Template.Spec.PriorityClassName = "other"
	if poolerTemplateMatches(s.Template, want) {
		t.Error("a priority class changed by hand is not drift")
	}

	pref := appliedPooler(t, &pgv1.PlacementSpec{AntiAffinity: pgv1.AntiAffinityPreferred, TopologyKey: "topology.kubernetes.io/zone"})
	if a := pref.Template.Spec.Affinity; a == nil || len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 1 ||
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.TopologyKey != "topology.kubernetes.io/zone" {
		t.Errorf("Preferred by zone gave %+v", pref.Template.Spec.Affinity)
	}
	// Nothing to place: no template at all, and one left by an earlier
	// apply of ours is drift (our next apply removes it).
	for name, pl := range map[string]*pgv1.PlacementSpec{"none": nil, "disabled only": {AntiAffinity: pgv1.AntiAffinityDisabled}} {
		if got := appliedPooler(t, pl); got.Template != nil || !poolerTemplateMatches(nil, poolerPodSpec("shop-pooler-rw", pl)) {
			t.Errorf("%s: template %+v, want none", name, got.Template)
		}
	}
	if poolerTemplateMatches(s.Template, nil) {
		t.Error("a template of ours matches a cluster without pooler placement")
	}
}
