package cluster

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	pglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Claims wake a cluster after roleBatchDelay once its provisioner is
// ready; before, later (they cannot be applied yet) — but always.
func TestClaimDelayWaitsForTheProvisioner(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	c := &Controller{clusters: pglisters.NewPostgresClusterLister(idx), databases: databaseIndexer(), deps: &deps{pace: &claimPace{}}}
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

// While claims keep coming, a cluster applies its roles at most once per
// rolesApplySpacing: a claim right after an apply waits for the spacing
// to end, one after a quiet spell only roleBatchDelay. Each cluster is
// paced on its own, and a cluster forgotten starts afresh.
func TestRoleAppliesSpacedWhileClaimsKeepComing(t *testing.T) {
	now := time.Unix(1000, 0)
	p := &claimPace{now: func() time.Time { return now }}
	a, b := workqueue.Key{Namespace: "ns", Name: "a"}, workqueue.Key{Namespace: "ns", Name: "b"}
	if d := p.delay(a); d != roleBatchDelay {
		t.Errorf("first claim: %v, want %v", d, roleBatchDelay)
	}
	p.applied(a)
	now = now.Add(300 * time.Millisecond)
	if d, want := p.delay(a), rolesApplySpacing-300*time.Millisecond; d != want {
		t.Errorf("claim 300ms after an apply: %v, want %v", d, want)
	}
	if d := p.delay(b); d != roleBatchDelay {
		t.Errorf("another cluster's claim: %v, want %v", d, roleBatchDelay)
	}
	now = now.Add(rolesApplySpacing - 350*time.Millisecond)
	if d := p.delay(a); d != roleBatchDelay {
		t.Errorf("claim at the end of the spacing: %v, want at least %v", d, roleBatchDelay)
	}
	now = now.Add(time.Hour)
	if d := p.delay(a); d != roleBatchDelay {
		t.Errorf("claim long after the apply: %v, want %v", d, roleBatchDelay)
	}
	p.applied(a)
	p.forget(a)
	if d := p.delay(a); d != roleBatchDelay {
		t.Errorf("claim for a forgotten cluster: %v, want %v", d, roleBatchDelay)
	}
}

// A claim waits, up to claimGatherLimit from the first one, while another
// database of the cluster is about to claim too; once none is, it waits
// only roleBatchDelay, which ends the earlier claims' wait in the queue.
// A database that has reported on its generation without claiming is
// held up by something else, and nobody waits for it.
func TestClaimsWaitForSiblingsOnTheirWay(t *testing.T) {
	now := time.Unix(1000, 0)
	clusters := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	pc := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop", Generation: 1}}
	pc.Status.Conditions = []metav1.Condition{{Type: pgv1.ConditionProvisionerReady, Status: metav1.ConditionTrue, ObservedGeneration: 1}}
	if err := clusters.Add(pc); err != nil {
		t.Fatal(err)
	}
	dbs := databaseIndexer()
	secrets := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	c := &Controller{clusters: pglisters.NewPostgresClusterLister(clusters), databases: dbs,
		secrets: corelisters.NewSecretLister(secrets), deps: &deps{pace: &claimPace{now: func() time.Time { return now }}}}
	key := workqueue.Key{Namespace: "ns", Name: "shop"}
	newDB := func(name string) *pgv1.PostgresDatabase {
		db := claimant(name, types.UID("uid-"+name), time.Minute, name)
		db.Spec.ClusterRef.Name = "shop"
		db.Generation = 1
		db.Status = pgv1.PostgresDatabaseStatus{}
		db.Finalizers = []string{controller.DatabaseFinalizer}
		if err := dbs.Add(db); err != nil {
			t.Fatal(err)
		}
		return db
	}
	place := func(db *pgv1.PostgresDatabase) {
		for _, s := range []string{"-admin", "-rw"} {
			if err := secrets.Add(credential(db.Name+"-"+db.Name+s, db.Name, db)); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, b := newDB("a"), newDB("b")
	place(a)
	if d := c.claimDelay(key); d != claimGatherLimit {
		t.Errorf("first claim, b on its way: %v, want %v", d, claimGatherLimit)
	}
	now = now.Add(500 * time.Millisecond)
	if d := c.claimDelay(key); d != claimGatherLimit-500*time.Millisecond {
		t.Errorf("a claim 500ms later: %v, want the rest of the window", d)
	}
	place(b)
	if d := c.claimDelay(key); d != roleBatchDelay {
		t.Errorf("last claim: %v, want %v", d, roleBatchDelay)
	}

	// A third database that reported on its generation without claiming
	// holds nobody back; with no status at its generation it does again.
	stuck := newDB("stuck")
	stuck.Status.ObservedGeneration = 1
	if d := c.claimDelay(key); d != roleBatchDelay {
		t.Errorf("claim beside a stuck database: %v, want %v", d, roleBatchDelay)
	}
	stuck.Status.ObservedGeneration = 0
	c.deps.pace.applied(key)
	now = now.Add(time.Hour)
	if d := c.claimDelay(key); d != claimGatherLimit {
		t.Errorf("a new window after the apply: %v, want %v", d, claimGatherLimit)
	}
	// A window long past without an apply starts again.
	now = now.Add(time.Hour)
	if d := c.claimDelay(key); d != claimGatherLimit {
		t.Errorf("claim long after an unapplied window: %v, want %v", d, claimGatherLimit)
	}
}

// databaseIndexer is an empty PostgresDatabase cache with the cluster index.
func databaseIndexer() cache.Indexer {
	return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{controller.ByClusterRef: func(obj any) ([]string, error) {
		db := obj.(*pgv1.PostgresDatabase)
		return []string{db.Namespace + "/" + db.Spec.ClusterRef.Name}, nil
	}})
}
