package cluster

import (
	"maps"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// CloudNativePG's words for the anti-affinity types.
var cnpgAntiAffinity = map[pgv1.AntiAffinity]string{
	pgv1.AntiAffinityPreferred: "preferred",
	pgv1.AntiAffinityRequired:  "required",
}

// withPlacement adds the merged placement to the CNPG Cluster's spec: only
// the fields the placement sets, so an unset one keeps CloudNativePG's
// default (anti-affinity on, preferred, per node) and a field dropped from
// the placement goes from the CNPG Cluster with our next apply.
func withPlacement(spec *cnpgac.ClusterSpecApplyConfiguration, pl *pgv1.PlacementSpec) {
	if pl == nil {
		return
	}
	if a := affinityOf(pl); a != nil {
		spec.WithAffinity(a)
	}
	if len(pl.TopologySpreadConstraints) > 0 {
		spec.WithTopologySpreadConstraints(pl.TopologySpreadConstraints...)
	}
	if pl.PriorityClassName != "" {
		spec.WithPriorityClassName(pl.PriorityClassName)
	}
}

func affinityOf(pl *pgv1.PlacementSpec) *cnpgac.AffinityConfigurationApplyConfiguration {
	if pl.AntiAffinity == "" && pl.TopologyKey == "" && len(pl.NodeSelector) == 0 && len(pl.Tolerations) == 0 {
		return nil
	}
	a := cnpgac.AffinityConfiguration()
	switch pl.AntiAffinity {
	case pgv1.AntiAffinityDisabled:
		a.WithEnablePodAntiAffinity(false)
	case pgv1.AntiAffinityPreferred, pgv1.AntiAffinityRequired:
		a.WithEnablePodAntiAffinity(true).WithPodAntiAffinityType(cnpgAntiAffinity[pl.AntiAffinity])
	}
	if pl.TopologyKey != "" {
		a.WithTopologyKey(pl.TopologyKey)
	}
	if len(pl.NodeSelector) > 0 {
		a.WithNodeSelector(pl.NodeSelector)
	}
	if len(pl.Tolerations) > 0 {
		a.WithTolerations(pl.Tolerations...)
	}
	return a
}

// placementMatches: the CNPG Cluster has the placement's fields (those
// it sets; CloudNativePG's defaults elsewhere are not drift).
func placementMatches(s cnpgv1.ClusterSpec, pl *pgv1.PlacementSpec) bool {
	if pl == nil {
		return true
	}
	var a cnpgv1.AffinityConfiguration
	if s.Affinity != nil {
		a = *s.Affinity
	}
	switch pl.AntiAffinity {
	case pgv1.AntiAffinityDisabled:
		if a.EnablePodAntiAffinity == nil || *a.EnablePodAntiAffinity {
			return false
		}
	case pgv1.AntiAffinityPreferred, pgv1.AntiAffinityRequired:
		if a.EnablePodAntiAffinity == nil || !*a.EnablePodAntiAffinity || a.PodAntiAffinityType != cnpgAntiAffinity[pl.AntiAffinity] {
			return false
		}
	}
	return (pl.TopologyKey == "" || a.TopologyKey == pl.TopologyKey) &&
		(len(pl.NodeSelector) == 0 || maps.Equal(a.NodeSelector, pl.NodeSelector)) &&
		(len(pl.Tolerations) == 0 || apiequality.Semantic.DeepEqual(a.Tolerations, pl.Tolerations)) &&
		(len(pl.TopologySpreadConstraints) == 0 || apiequality.Semantic.DeepEqual(s.TopologySpreadConstraints, pl.TopologySpreadConstraints)) &&
		(pl.PriorityClassName == "" || s.PriorityClassName == pl.PriorityClassName)
}
