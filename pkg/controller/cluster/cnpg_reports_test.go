package cluster

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	cnpglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// CNPG's report that a Cluster is healthy, its monitor role applied, wakes
// its PostgresCluster ahead of the first passes queued meanwhile; CNPG's
// steps on the way, healthy before the monitor role is applied, and an
// update of the Cluster in which CNPG reported nothing (our own apply's
// echo) wake it at Normal.
func TestCNPGReportsGoAheadOfFirstPasses(t *testing.T) {
	t.Parallel()
	const uid = types.UID("u1")
	lookup := func(ns, name string) (types.UID, bool) { return uid, ns == "ns" && name == "shop" }
	var normal, urgent []workqueue.Key
	monitor := false
	h := cnpgClusterHandler(
		informers.OwnerHandler("PostgresCluster", lookup, func(k workqueue.Key) { normal = append(normal, k) }),
		informers.OwnerHandler("PostgresCluster", lookup, func(k workqueue.Key) { urgent = append(urgent, k) }),
		func(ns, cluster string) bool { return monitor && ns == "ns" && cluster == "shop" })
	isController := true
	old := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop", ResourceVersion: "1", Generation: 1,
		OwnerReferences: []metav1.OwnerReference{{Kind: "PostgresCluster", Name: "shop", UID: uid, Controller: &isController}}},
		Status: cnpgv1.ClusterStatus{Phase: "Setting up primary"}}

	key := workqueue.Key{Namespace: "ns", Name: "shop"}

	step := old.DeepCopy()
	step.ResourceVersion = "2"
	step.Status.Phase, step.Status.ReadyInstances = "Creating primary instance", 0
	h.OnUpdate(old, step)
	if len(urgent) != 0 || len(normal) != 1 || normal[0] != key {
		t.Fatalf("a step on the way: urgent %v, normal %v; want one Normal wake of ns/shop", urgent, normal)
	}

	healthy := step.DeepCopy()
	healthy.ResourceVersion = "3"
	healthy.Status.Phase, healthy.Status.ReadyInstances = cnpgHealthy, 1
	h.OnUpdate(step, healthy)
	if len(urgent) != 0 || len(normal) != 2 {
		t.Fatalf("CNPG healthy, the monitor role not applied: urgent %v, normal %v; want a Normal wake", urgent, normal)
	}

	monitor = true
	h.OnUpdate(step, healthy)
	if len(urgent) != 1 || urgent[0] != key || len(normal) != 2 {
		t.Fatalf("CNPG healthy, the monitor role applied: urgent %v, normal %v; want ns/shop woken urgently, once", urgent, normal)
	}

	applied := healthy.DeepCopy()
	applied.ResourceVersion, applied.Generation = "4", 2
	applied.Spec.Instances = 3
	h.OnUpdate(healthy, applied)
	if len(urgent) != 1 || len(normal) != 3 {
		t.Fatalf("our own apply's echo, still healthy: urgent %v, normal %v; want a Normal wake", urgent, normal)
	}

	h.OnDelete(applied)
	if len(normal) != 4 {
		t.Fatalf("deleted: normal %v, want the cluster woken", normal)
	}
}

// The routing hint reads the monitor's DatabaseRole from the cache:
// applied at its current generation, and nothing else, counts.
func TestMonitorAppliedReadsTheCache(t *testing.T) {
	t.Parallel()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	c := &Controller{databaseRoles: cnpglisters.NewDatabaseRoleLister(idx)}
	if c.monitorApplied("ns", "shop") {
		t.Fatal("no DatabaseRole in the cache counted as applied")
	}
	role := &cnpgv1.DatabaseRole{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: naming.MonitorRoleObject("shop"), Generation: 2},
		Status: cnpgv1.DatabaseRoleStatus{ObservedGeneration: 1, Applied: ptr.To(true)}}
	if err := idx.Add(role); err != nil {
		t.Fatal(err)
	}
	if c.monitorApplied("ns", "shop") {
		t.Fatal("an earlier generation's applied counted")
	}
	role.Status.ObservedGeneration = 2
	if !c.monitorApplied("ns", "shop") {
		t.Fatal("the current generation applied did not count")
	}
}
