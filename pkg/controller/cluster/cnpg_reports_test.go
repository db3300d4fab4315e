package cluster

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// CNPG's report that a Cluster is healthy wakes its PostgresCluster ahead
// of the first passes queued meanwhile; an update of the Cluster in which
// CNPG reported nothing (our own apply's echo) wakes it at Normal.
func TestCNPGReportsGoAheadOfFirstPasses(t *testing.T) {
	t.Parallel()
	const uid = types.UID("u1")
	lookup := func(ns, name string) (types.UID, bool) { return uid, ns == "ns" && name == "shop" }
	var normal, urgent []workqueue.Key
	h := cnpgClusterHandler(
		informers.OwnerHandler("PostgresCluster", lookup, func(k workqueue.Key) { normal = append(normal, k) }),
		informers.OwnerHandler("PostgresCluster", lookup, func(k workqueue.Key) { urgent = append(urgent, k) }))
	isController := true
	old := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop", ResourceVersion: "1", Generation: 1,
		OwnerReferences: []metav1.OwnerReference{{Kind: "PostgresCluster", Name: "shop", UID: uid, Controller: &isController}}},
		Status: cnpgv1.ClusterStatus{Phase: "Setting up primary"}}

	healthy := old.DeepCopy()
	healthy.ResourceVersion = "2"
	healthy.Status.Phase = cnpgHealthy
	h.OnUpdate(old, healthy)
	if len(urgent) != 1 || len(normal) != 0 {
		t.Fatalf("CNPG healthy: urgent %v, normal %v; want the cluster woken urgently, once", urgent, normal)
	}

	applied := healthy.DeepCopy()
	applied.ResourceVersion, applied.Generation = "3", 2
	applied.Spec.Instances = 3
	h.OnUpdate(healthy, applied)
	if len(urgent) != 1 || len(normal) != 1 || normal[0] != (workqueue.Key{Namespace: "ns", Name: "shop"}) {
		t.Fatalf("our own apply's echo: urgent %v, normal %v; want one Normal wake of ns/shop", urgent, normal)
	}

	h.OnDelete(applied)
	if len(normal) != 2 {
		t.Fatalf("deleted: normal %v, want the cluster woken", normal)
	}
}
