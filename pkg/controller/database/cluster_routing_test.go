package database

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// routed runs the cluster handler's update from old to new and returns the
// number of keys it queued.
func routed(t *testing.T, f *fixture, old, new *pgv1.PostgresCluster) int {
	t.Helper()
	before := f.c.queue.Len()
	f.c.clusterHandler().OnUpdate(old, new)
	return f.c.queue.Len() - before
}

func routingFixture(t *testing.T) (*fixture, *pgv1.PostgresDatabase, *pgv1.PostgresDatabase) {
	a := newDatabase("a", pgv1.DatabaseSpec{Name: "orders"})
	b := newDatabase("b", pgv1.DatabaseSpec{Name: "billing"})
	f := newFixture(t, nil, []runtime.Object{readyCluster(), a, b})
	return f, a, b
}

// What a database reads of its cluster (clusterView) wakes every
// database on it: here the cluster leaving Ready.
func TestClusterChangeWakesEveryDatabase(t *testing.T) {
	t.Parallel()
	f, _, _ := routingFixture(t)
	old := readyCluster()
	old.ResourceVersion = "1"
	new := notReadyCluster()
	new.ResourceVersion = "2"
	if n := routed(t, f, old, new); n != 2 {
		t.Errorf("queued %d keys, want both databases", n)
	}
}

// A new cluster moving through its phases short of Ready (one status
// write each) wakes none of its databases: each would find itself still
// waiting for the cluster. A database being deleted is woken: its
// messages quote the cluster's phase.
func TestClusterPhasesShortOfReadyWakeNoDatabase(t *testing.T) {
	t.Parallel()
	f, a, _ := routingFixture(t)
	old := notReadyCluster()
	old.ResourceVersion = "1"
	old.Status.Phase = pgv1.PhasePending
	new := notReadyCluster()
	new.ResourceVersion = "2"
	new.Status.Conditions[0].Message = "CNPG: setting up primary (0/1 instances ready)"
	if n := routed(t, f, old, new); n != 0 {
		t.Errorf("queued %d keys for a phase change short of Ready, want none", n)
	}
	deleting := f.db(a.Name)
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deleting.Finalizers = []string{Finalizer}
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), deleting, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.refresh()
	if n := routed(t, f, old, new); n != 1 {
		t.Errorf("queued %d keys, want the database being deleted", n)
	}
}

// The same resourceVersion (a resync) wakes nothing.
func TestClusterResyncWakesNothing(t *testing.T) {
	t.Parallel()
	f, _, _ := routingFixture(t)
	pc := readyCluster()
	pc.ResourceVersion = "1"
	if n := routed(t, f, pc, pc.DeepCopy()); n != 0 {
		t.Errorf("queued %d keys on a resync", n)
	}
}

// cnpgRouted runs the CNPG Cluster handler's update from old to new and
// returns the number of keys it queued.
func cnpgRouted(t *testing.T, f *fixture, old, new *cnpgv1.Cluster) int {
	t.Helper()
	before := f.c.queue.Len()
	f.c.cnpgClusterHandler().OnUpdate(old, new)
	return f.c.queue.Len() - before
}

func cnpgCluster(rv string, roles ...cnpgv1.RoleConfiguration) *cnpgv1.Cluster {
	cc := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "pg", Namespace: ns, ResourceVersion: rv},
		Spec: cnpgv1.ClusterSpec{Instances: 1}}
	if roles != nil {
		cc.Spec.Managed = &cnpgv1.ManagedConfiguration{Roles: roles}
	}
	return cc
}

// A change of the CNPG Cluster's spec.managed.roles wakes every database
// on the cluster: a role listed there is refused or waits (claimRole).
// Databases of other clusters sleep on.
func TestManagedRolesChangeWakesTheClusterDatabases(t *testing.T) {
	t.Parallel()
	ours := cnpgv1.RoleConfiguration{Name: "orders_admin", Comment: ownership.PostgresMarker(ns, "a")}
	byHand := cnpgv1.RoleConfiguration{Name: "billing_rw", Comment: "by hand"}
	for name, tc := range map[string]struct{ old, new *cnpgv1.Cluster }{
		"an upgrade hands a role over to a DatabaseRole": {cnpgCluster("1", ours), cnpgCluster("2")},
		"someone lists a role there":                     {cnpgCluster("1"), cnpgCluster("2", byHand)},
		"an entry changes":                               {cnpgCluster("1", byHand), cnpgCluster("2", cnpgv1.RoleConfiguration{Name: "billing_rw"})},
	} {
		t.Run(name, func(t *testing.T) {
			f, _, _ := routingFixture(t)
			other := newDatabase("other", pgv1.DatabaseSpec{Name: "stock"})
			other.Spec.ClusterRef.Name = "elsewhere"
			if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), other, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			f.refresh()
			if n := cnpgRouted(t, f, tc.old, tc.new); n != 2 {
				t.Errorf("queued %d keys, want the databases of cluster pg: a and b", n)
			}
		})
	}
}

// Everything else of the CNPG Cluster — its status above all, written on
// every instance change — reaches the databases through their
// PostgresCluster, if at all: it wakes none of them.
func TestCNPGClusterChangeOutsideManagedRolesWakesNoDatabase(t *testing.T) {
	t.Parallel()
	f, _, _ := routingFixture(t)
	roles := cnpgv1.RoleConfiguration{Name: "app", Comment: "by hand"}
	old := cnpgCluster("1", roles)
	status := cnpgCluster("2", roles)
	status.Status = cnpgv1.ClusterStatus{Phase: "Switchover in progress", ReadyInstances: 1, CurrentPrimary: "pg-2",
		Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Switchover"}}}
	if n := cnpgRouted(t, f, old, status); n != 0 {
		t.Errorf("a status write queued %d keys, want none", n)
	}
	spec := status.DeepCopy()
	spec.ResourceVersion = "3"
	spec.Spec.Instances = 3
	if n := cnpgRouted(t, f, status, spec); n != 0 {
		t.Errorf("a spec change outside managed.roles queued %d keys, want none", n)
	}
	if n := cnpgRouted(t, f, spec, spec.DeepCopy()); n != 0 {
		t.Errorf("a resync queued %d keys, want none", n)
	}
}

// A replica promoted (its topology names it primary, or is removed) may
// stay Ready throughout: the change of role alone wakes its databases,
// which waited with ClusterIsReplica.
func TestPromotionWakesEveryDatabase(t *testing.T) {
	t.Parallel()
	f, _, _ := routingFixture(t)
	old := readyCluster()
	old.ResourceVersion = "1"
	old.Spec.Topology = &pgv1.TopologySpec{Primary: "pg-a", Peers: []pgv1.TopologyPeer{{Name: "pg-a"}}}
	new := readyCluster()
	new.ResourceVersion = "2"
	if n := routed(t, f, old, new); n != 2 {
		t.Errorf("queued %d keys for a promotion, want both databases", n)
	}
}
