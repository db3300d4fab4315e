package database

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
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

// A role report that moves on for one database wakes that one only.
func TestRoleReportWakesOnlyTheDatabaseItIsAbout(t *testing.T) {
	f, a, b := routingFixture(t)
	old := readyCluster()
	old.ResourceVersion = "1"
	ownRoles(a, "orders_admin", "orders_rw")(old)
	new := old.DeepCopy()
	new.ResourceVersion = "2"
	new.Status.ManagedRolesStatus.Owners = append(new.Status.ManagedRolesStatus.Owners,
		pgv1.RoleOwner{Role: "billing_admin", Owner: pgv1.ObjectOwner{Name: b.Name, UID: b.UID}})
	if n := routed(t, f, old, new); n != 1 {
		t.Fatalf("queued %d keys, want only b", n)
	}
	// Unchanged for a: a pass of a would find nothing new.
	if !rolesEqualFor(old, new, a) {
		t.Error("the report about a changed")
	}
}

// What a database reads of its cluster (clusterView) wakes every
// database on it: here the cluster leaving Ready.
func TestClusterChangeWakesEveryDatabase(t *testing.T) {
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
	f, _, _ := routingFixture(t)
	pc := readyCluster()
	pc.ResourceVersion = "1"
	if n := routed(t, f, pc, pc.DeepCopy()); n != 0 {
		t.Errorf("queued %d keys on a resync", n)
	}
}

// A conflict naming a database as claimant concerns it even for a role
// outside its names.
func TestConflictReachesItsClaimant(t *testing.T) {
	_, a, _ := routingFixture(t)
	old := readyCluster()
	new := old.DeepCopy()
	new.Status.ManagedRolesStatus = &pgv1.ManagedRolesStatus{Conflicts: []pgv1.RoleConflict{
		{Role: "shared_admin", Claimant: pgv1.ObjectOwner{Name: a.Name, UID: a.UID}, Message: "exists"}}}
	if rolesEqualFor(old, new, a) {
		t.Error("a conflict naming a as claimant does not concern a")
	}
}

func rolesEqualFor(o, n *pgv1.PostgresCluster, db *pgv1.PostgresDatabase) bool {
	return equalReports(rolesReportFor(o, db), rolesReportFor(n, db))
}
