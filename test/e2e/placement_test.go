package e2e_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A class's placement and a cluster's override reach the CNPG Cluster's
// affinity, topologySpreadConstraints and priorityClassName, merged as
// the guide says (node selector key by key, tolerations replaced); taking
// the cluster's override away gives the class's back.
func TestPlacementReachesTheCNPGCluster(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	dedicated := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
		Placement: &pgv1.PlacementSpec{AntiAffinity: pgv1.AntiAffinityRequired, TopologyKey: "topology.kubernetes.io/zone",
			NodeSelector: map[string]string{"pool": "db", "disk": "ssd"}, Tolerations: []corev1.Toleration{dedicated}}})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{Placement: &pgv1.PlacementSpec{
		NodeSelector: map[string]string{"pool": "fast"}, PriorityClassName: "databases"}}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)

	placed := func(want string, ok func(a *corevAffinity) bool) {
		t.Helper()
		kit.Eventually(t, time.Minute, want, func(ctx context.Context) (bool, string, error) {
			cl, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
			if err != nil {
				return false, "", err
			}
			a := &corevAffinity{priority: cl.Spec.PriorityClassName}
			if cl.Spec.Affinity != nil {
				a.required = cl.Spec.Affinity.EnablePodAntiAffinity != nil && *cl.Spec.Affinity.EnablePodAntiAffinity && cl.Spec.Affinity.PodAntiAffinityType == "required"
				a.key, a.selector, a.tolerations = cl.Spec.Affinity.TopologyKey, cl.Spec.Affinity.NodeSelector, cl.Spec.Affinity.Tolerations
			}
			return ok(a), fmt.Sprintf("%+v", a), nil
		})
	}
	placed("the class's placement with the cluster's node selector and priority class", func(a *corevAffinity) bool {
		return a.required && a.key == "topology.kubernetes.io/zone" && a.selector["pool"] == "fast" && a.selector["disk"] == "ssd" &&
			len(a.tolerations) == 1 && a.tolerations[0].Key == "dedicated" && a.priority == "databases"
	})

	kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) { c.Spec.Placement = nil })
	placed("the class's placement alone", func(a *corevAffinity) bool {
		return a.required && a.selector["pool"] == "db" && a.selector["disk"] == "ssd" && a.priority == ""
	})
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, time.Minute)
}

// corevAffinity is what the test reads of the CNPG Cluster's placement.
type corevAffinity struct {
	required    bool
	key         string
	selector    map[string]string
	tolerations []corev1.Toleration
	priority    string
}
