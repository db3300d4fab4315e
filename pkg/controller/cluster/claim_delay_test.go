package cluster

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	pglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Claims wake a cluster after roleBatchDelay once its provisioner is
// ready; before, later (they cannot be applied yet) — but always.
func TestClaimDelayWaitsForTheProvisioner(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	c := &Controller{clusters: pglisters.NewPostgresClusterLister(idx)}
	key := workqueue.Key{Namespace: "ns", Name: "pg"}
	if d := c.claimDelay(key); d != roleBatchDelay {
		t.Errorf("unknown cluster: %v, want %v (the pass decides)", d, roleBatchDelay)
	}
	pc := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg", Generation: 2}}
	if err := idx.Add(pc); err != nil {
		t.Fatal(err)
	}
	if d := c.claimDelay(key); d != unprovisionedClaimDelay {
		t.Errorf("provisioning cluster: %v, want %v", d, unprovisionedClaimDelay)
	}
	pc.Status.Conditions = []metav1.Condition{{Type: pgv1.ConditionProvisionerReady, Status: metav1.ConditionTrue, ObservedGeneration: 1}}
	if d := c.claimDelay(key); d != unprovisionedClaimDelay {
		t.Errorf("provisioner ready at an older generation: %v, want %v", d, unprovisionedClaimDelay)
	}
	pc.Status.Conditions[0].ObservedGeneration = 2
	if d := c.claimDelay(key); d != roleBatchDelay {
		t.Errorf("provisioned cluster: %v, want %v", d, roleBatchDelay)
	}
	pc.Status.Conditions = nil
	pc.DeletionTimestamp = &metav1.Time{}
	if d := c.claimDelay(key); d != roleBatchDelay {
		t.Errorf("cluster being deleted: %v, want %v", d, roleBatchDelay)
	}
}
