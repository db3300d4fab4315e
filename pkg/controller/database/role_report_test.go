package database

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func cnpgClusterReporting(pc *pgv1.PostgresCluster, rv string, reconciled ...string) *cnpgv1.Cluster {
	return &cnpgv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: pc.Name, Namespace: pc.Namespace, ResourceVersion: rv,
			OwnerReferences: []metav1.OwnerReference{{Kind: "PostgresCluster", Name: pc.Name, UID: pc.UID, Controller: ptr.To(true)}}},
		Status: cnpgv1.ClusterStatus{ManagedRolesStatus: &cnpgv1.ManagedRoles{
			ByStatus: map[string][]string{cnpgv1.RoleStatusReconciled: reconciled}}},
	}
}

// CNPG reporting one database's role reconciled wakes that database only;
// a CNPG Cluster update that leaves the role report alone wakes none.
func TestCNPGRoleReportWakesOnlyTheDatabaseItIsAbout(t *testing.T) {
	f, _, _ := routingFixture(t)
	pc := readyCluster()
	old := cnpgClusterReporting(pc, "1", "orders_admin")
	new := cnpgClusterReporting(pc, "2", "orders_admin", "billing_admin")
	before := f.c.queue.Len()
	f.c.cnpgClusterHandler().OnUpdate(old, new)
	if n := f.c.queue.Len() - before; n != 1 {
		t.Fatalf("queued %d keys, want only b", n)
	}
	same := new.DeepCopy()
	same.ResourceVersion = "3"
	same.Status.Phase = "Cluster in healthy state"
	before = f.c.queue.Len()
	f.c.cnpgClusterHandler().OnUpdate(new, same)
	if n := f.c.queue.Len() - before; n != 0 {
		t.Errorf("queued %d keys for a change outside the role report", n)
	}
}

// CNPG's word counts only from the CNPG Cluster the PostgresCluster
// controls: a namesake reporting our role reconciled leaves it pending.
func TestRoleReportIgnoresACNPGClusterWeDoNotControl(t *testing.T) {
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	pc := readyCluster()
	ownRoles(db, "orders_admin", "orders_rw")(pc)
	foreign := cnpgClusterReporting(pc, "1", "orders_admin", "orders_rw")
	foreign.OwnerReferences = nil
	if r := reportOf(pc, foreign); r.isReconciled("orders_admin") {
		t.Error("a CNPG Cluster pc does not control was believed")
	}
	if r := reportOf(pc, cnpgClusterReporting(pc, "1", "orders_admin")); !r.isReconciled("orders_admin") || r.isReconciled("orders_rw") {
		t.Errorf("report of our CNPG Cluster = %+v", r)
	}

	f := newFixture(t, clusterSecrets(), []runtime.Object{pc, db})
	f.setCNPGRoles(pc, nil, nil) // our CNPG Cluster: nothing reconciled yet
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
	if c := cond(t, f.db("shop"), pgv1.ConditionRolesReady); c.Reason != "RolesPending" {
		t.Errorf("RolesReady = %+v, want RolesPending while CNPG has not reconciled", c)
	}
}
