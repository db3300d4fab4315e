package cluster

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// CloudNativePG labels a pooler's PgBouncer Pods with the Pooler's name:
// the anti-affinity keeps one pooler's Pods apart, not the rw pooler's
// from the ro pooler's.
const poolerNameLabel = "cnpg.io/poolerName"

// pgBouncerContainer is the container CloudNativePG runs PgBouncer in.
const pgBouncerContainer = "pgbouncer"

// poolerPodSpec is the placement part of a pooler's Pod template, as
// setpoint writes it: nil without a placement (or with one that sets
// nothing), so the Pooler has no template of ours. Unlike the instances,
// whose anti-affinity CloudNativePG builds from a type and a key,
// a Pooler takes a Pod spec: setpoint builds the affinity itself.
func poolerPodSpec(pooler string, pl *pgv1.PlacementSpec) *cnpgv1.PoolerPodSpec {
	if pl == nil {
		return nil
	}
	s := &cnpgv1.PoolerPodSpec{
		Affinity:                  poolerAntiAffinity(pooler, pl),
		NodeSelector:              maps.Clone(pl.NodeSelector),
		Tolerations:               pl.Tolerations,
		TopologySpreadConstraints: pl.TopologySpreadConstraints,
		PriorityClassName:         pl.PriorityClassName,
	}
	if s.Affinity == nil && len(s.NodeSelector) == 0 && len(s.Tolerations) == 0 &&
		len(s.TopologySpreadConstraints) == 0 && s.PriorityClassName == "" {
		return nil
	}
	s.Containers = []cnpgv1.ContainerName{{Name: pgBouncerContainer}}
	return s
}

// poolerAntiAffinity keeps the pooler's own Pods off one domain
// (topologyKey, the node by default): required or preferred; none when
// Disabled or unset, as CloudNativePG does for poolers.
func poolerAntiAffinity(pooler string, pl *pgv1.PlacementSpec) *corev1.Affinity {
	key := pl.TopologyKey
	if key == "" {
		key = corev1.LabelHostname
	}
	term := corev1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{poolerNameLabel: pooler}},
		TopologyKey:   key,
	}
	switch pl.AntiAffinity {
	case pgv1.AntiAffinityRequired:
		return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}}
	case pgv1.AntiAffinityPreferred:
		return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: term}}}}
	}
	return nil
}

// withPoolerTemplate adds the template to the Pooler's spec when there is
// one; without, the apply leaves it out and an earlier one of ours goes.
func withPoolerTemplate(spec *cnpgac.PoolerSpecApplyConfiguration, s *cnpgv1.PoolerPodSpec) {
	if s == nil {
		return
	}
	ps := cnpgac.PoolerPodSpec().WithContainers(cnpgac.ContainerName().WithName(pgBouncerContainer))
	if s.Affinity != nil {
		ps.WithAffinity(*s.Affinity)
	}
	if len(s.NodeSelector) > 0 {
		ps.WithNodeSelector(s.NodeSelector)
	}
	if len(s.Tolerations) > 0 {
		ps.WithTolerations(s.Tolerations...)
	}
	if len(s.TopologySpreadConstraints) > 0 {
		ps.WithTopologySpreadConstraints(s.TopologySpreadConstraints...)
	}
	if s.PriorityClassName != "" {
		ps.WithPriorityClassName(s.PriorityClassName)
	}
	spec.WithTemplate(cnpgac.PoolerTemplate().WithSpec(ps))
}

// poolerTemplateMatches: the Pooler's template has exactly the placement
// setpoint writes, and none when it writes none.
func poolerTemplateMatches(cur *cnpgv1.PoolerTemplate, want *cnpgv1.PoolerPodSpec) bool {
	if want == nil || cur == nil {
		return (want == nil) == (cur == nil)
	}
	c := cur.Spec
	return apiequality.Semantic.DeepEqual(c.Affinity, want.Affinity) &&
		mapsEqualNil(c.NodeSelector, want.NodeSelector) &&
		(len(c.Tolerations) == 0 && len(want.Tolerations) == 0 || apiequality.Semantic.DeepEqual(c.Tolerations, want.Tolerations)) &&
		(len(c.TopologySpreadConstraints) == 0 && len(want.TopologySpreadConstraints) == 0 ||
			apiequality.Semantic.DeepEqual(c.TopologySpreadConstraints, want.TopologySpreadConstraints)) &&
		c.PriorityClassName == want.PriorityClassName
}

// poolerPlacement is the merged placement of the poolers.
func poolerPlacement(p *pass) *pgv1.PlacementSpec {
	if cp := p.want.Settings.ConnectionPooler; cp != nil {
		return cp.Placement
	}
	return nil
}
