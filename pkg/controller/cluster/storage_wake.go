package cluster

import (
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	pglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
)

// GrowThresholds gives the collector each cluster's auto-grow threshold
// (collector.Options.WakeThresholds): usage crossing it wakes the pass,
// which decides from the sample. The policy is merged with the class from
// the cache, as the pass merges it; none when auto-grow is off or the
// class is missing (the pass reports that).
func GrowThresholds(classes pglisters.PostgresClusterClassLister) func(*pgv1.PostgresCluster) []float64 {
	return func(pc *pgv1.PostgresCluster) []float64 {
		class, err := informers.IgnoreNotFound(classes.Get(pc.Spec.Class))
		if err != nil || class == nil {
			return nil
		}
		d, err := resolve(pc, class)
		if err != nil || d.AutoGrow == nil {
			return nil
		}
		return []float64{float64(d.AutoGrow.threshold) / 100}
	}
}
