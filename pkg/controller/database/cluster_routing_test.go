package database

import (
	"testing"

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

// Anything but the role report wakes every database on the cluster.
func TestClusterChangeWakesEveryDatabase(t *testing.T) {
	f, _, _ := routingFixture(t)
	old := readyCluster()
	old.ResourceVersion = "1"
	new := old.DeepCopy()
	new.ResourceVersion = "2"
	new.Status.Phase = pgv1.PhaseConfiguring
	if n := routed(t, f, old, new); n != 2 {
		t.Errorf("queued %d keys, want both databases", n)
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
