package cluster

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

func claimant(name string, uid types.UID, age time.Duration, roles ...string) *pgv1.PostgresDatabase {
	db := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: "ns", UID: uid, CreationTimestamp: metav1.NewTime(time.Unix(1e9, 0).Add(-age)),
	}}
	st := pgv1.DatabaseStatus{Name: "x"}
	for _, r := range roles {
		st.Roles = append(st.Roles, pgv1.RoleStatus{Name: r, Ensure: pgv1.RoleEnsurePresent,
			PasswordSecretRef: &pgv1.LocalObjectReference{Name: name + "-" + r}})
	}
	db.Status.Databases = []pgv1.DatabaseStatus{st}
	return db
}

func TestFirstClaimantOwnsRoleAndLaterOnesConflict(t *testing.T) {
	p := testPass()
	older := claimant("first", "uid-1", time.Hour, "orders_admin", "orders_rw")
	newer := claimant("second", "uid-2", time.Minute, "orders_admin")
	p.obs = &observation{databases: []*pgv1.PostgresDatabase{newer, older}}
	plan := planRoles(p)
	if len(plan.roles) != 2 || plan.roles[0].Name != "orders_admin" || plan.roles[0].PasswordSecret.Name != "first-orders_admin" {
		t.Fatalf("roles = %+v", plan.roles)
	}
	if len(plan.conflicts) != 1 || plan.conflicts[0].Claimant.Name != "second" || plan.conflicts[0].Owner.UID != "uid-1" {
		t.Fatalf("conflicts = %+v", plan.conflicts)
	}

	// An owner recorded in status keeps the role even if a claimant looks
	// older (for example re-created objects): ownership does not flap.
	p.status.ManagedRolesStatus = &pgv1.ManagedRolesStatus{Owners: []pgv1.RoleOwner{
		{Role: "orders_admin", Owner: pgv1.ObjectOwner{Name: "second", UID: "uid-2"}},
	}}
	plan = planRoles(p)
	if plan.owners[0].Owner.Name != "second" {
		t.Fatalf("recorded owner lost the role: %+v", plan.owners)
	}

	// A deleted and re-created "second" (new UID) is a new claimant.
	p.obs.databases = []*pgv1.PostgresDatabase{older, claimant("second", "uid-3", 0, "orders_admin")}
	plan = planRoles(p)
	if plan.owners[0].Owner.UID != "uid-1" {
		t.Fatalf("owner = %+v, want the older claimant after the recorded owner vanished", plan.owners[0])
	}
}

func TestManagedRolesAppliesOnceThenNothing(t *testing.T) {
	cs := fake.NewClientset(&cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}})
	p := testPass()
	p.deps = &deps{pg: cs}
	p.obs = &observation{databases: []*pgv1.PostgresDatabase{claimant("app", "uid-1", time.Hour, "orders_admin")}}
	p.contracts.CNPGCluster = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}}
	c := managedRolesComponent{}
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	applied := p.contracts.CNPGCluster
	if applied.Spec.Managed == nil || len(applied.Spec.Managed.Roles) != 1 {
		t.Fatalf("applied roles = %+v", applied.Spec.Managed)
	}
	writes := len(cs.Actions())
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if len(cs.Actions()) != writes {
		t.Fatalf("second pass wrote again: %v", cs.Actions()[writes:])
	}
	h := c.Observe(t.Context(), p, nil)
	if h.phase != pgv1.PhaseReady || p.status.ManagedRolesStatus == nil || len(p.status.ManagedRolesStatus.Owners) != 1 {
		t.Fatalf("health %+v status %+v", h, p.status.ManagedRolesStatus)
	}
}
