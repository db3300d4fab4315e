package cluster

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// claimant is a PostgresDatabase whose spec has the databases dbs and whose
// status says their generated Secrets were validated: it asks for
// <db>_admin and <db>_rw of each.
func claimant(name string, uid types.UID, age time.Duration, dbs ...string) *pgv1.PostgresDatabase {
	db := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: "ns", UID: uid, CreationTimestamp: metav1.NewTime(time.Unix(1e9, 0).Add(-age)),
	}}
	for _, d := range dbs {
		n := controller.NamesOf(name, d)
		db.Spec.Databases = append(db.Spec.Databases, pgv1.DatabaseSpec{Name: d})
		db.Status.Databases = append(db.Status.Databases, pgv1.DatabaseStatus{Name: d,
			AdminSecretRef: &pgv1.LocalObjectReference{Name: n.AdminSecret},
			RWSecretRef:    &pgv1.LocalObjectReference{Name: n.RWSecret}})
	}
	return db
}

func roleNames(rs []cnpgv1.RoleConfiguration) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

func TestFirstClaimantOwnsRoleAndLaterOnesConflict(t *testing.T) {
	p := testPass()
	older := claimant("first", "uid-1", time.Hour, "orders")
	newer := claimant("second", "uid-2", time.Minute, "orders")
	p.obs = &observation{databases: []*pgv1.PostgresDatabase{newer, older}}
	plan := planRoles(p)
	if !slices.Equal(roleNames(plan.roles), []string{"orders_admin", "orders_rw"}) || plan.roles[0].PasswordSecret.Name != "first-orders-admin" {
		t.Fatalf("roles = %+v", plan.roles)
	}
	if plan.roles[0].Comment != "managed by setpoint for PostgresDatabase ns/first" {
		t.Fatalf("comment = %q", plan.roles[0].Comment)
	}
	if len(plan.conflicts) != 2 || plan.conflicts[0].Claimant.Name != "second" || plan.conflicts[0].Owner.UID != "uid-1" {
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
	p.obs.databases = []*pgv1.PostgresDatabase{older, claimant("second", "uid-3", 0, "orders")}
	plan = planRoles(p)
	if plan.owners[0].Owner.UID != "uid-1" {
		t.Fatalf("owner = %+v, want the older claimant after the recorded owner vanished", plan.owners[0])
	}
}

// Intent comes from the spec: a status that lists roles the spec does not
// imply, or other Secrets, or absent roles the object does not own, asks
// for nothing.
func TestStatusCannotInjectRoleIntent(t *testing.T) {
	db := claimant("app", "uid-1", time.Hour, "orders")
	db.Status.Databases[0].Roles = []pgv1.RoleStatus{{Name: "postgres", Ensure: pgv1.RoleEnsurePresent}}
	db.Status.Databases = append(db.Status.Databases,
		pgv1.DatabaseStatus{Name: "victim", Roles: []pgv1.RoleStatus{{Name: "victim_admin", Ensure: pgv1.RoleEnsureAbsent}}},
		pgv1.DatabaseStatus{Name: "x; DROP", AdminSecretRef: &pgv1.LocalObjectReference{Name: "s"}})
	notOwned := func(string) bool { return false }
	got := intentOf(db, notOwned, none)
	want := []roleIntent{
		{Name: "orders_admin", Ensure: pgv1.RoleEnsurePresent, Secret: "app-orders-admin"},
		{Name: "orders_rw", Ensure: pgv1.RoleEnsurePresent, Secret: "app-orders-rw"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("intent = %+v", got)
	}
	// Secrets other than the spec implies: not validated, nothing asked.
	db.Status.Databases[0].AdminSecretRef.Name = "someone-elses"
	if got := intentOf(db, notOwned, none); len(got) != 0 {
		t.Fatalf("intent with foreign Secret = %+v", got)
	}
	// Absent is honoured only for a role the cluster gave this object.
	db = claimant("app", "uid-1", time.Hour, "orders")
	db.Status.Databases[0].Roles = []pgv1.RoleStatus{{Name: "orders_admin", Ensure: pgv1.RoleEnsureAbsent}}
	if got := intentOf(db, notOwned, none); len(got) != 2 || got[0].Ensure != pgv1.RoleEnsurePresent {
		t.Fatalf("absent without ownership = %+v", got)
	}
	owned := func(r string) bool { return r == "orders_admin" }
	if got := intentOf(db, owned, none); len(got) != 1 || got[0] != (roleIntent{Name: "orders_admin", Ensure: pgv1.RoleEnsureAbsent}) {
		t.Fatalf("absent with ownership = %+v", got)
	}
}

func TestRoleIntentChangedComparesSemantically(t *testing.T) {
	a := claimant("app", "uid-1", time.Hour, "orders")
	b := a.DeepCopy()
	b.Status.Conditions = []metav1.Condition{{Type: "Ready"}}
	b.Status.Databases[0].Ready = true
	if roleIntentChanged(a, b) {
		t.Fatal("a status change that asks for nothing new woke the cluster")
	}
	b.Spec.Databases = append(b.Spec.Databases, pgv1.DatabaseSpec{Name: "more"})
	b.Status.Databases = append(b.Status.Databases, claimant("app", "uid-1", 0, "more").Status.Databases...)
	if !roleIntentChanged(a, b) {
		t.Fatal("a new database did not wake the cluster")
	}
}

// lookupFixed answers the role check as a server with these roles would.
func lookupFixed(roles map[string]string) func(context.Context, *pass, []string) (map[string]string, error) {
	return func(_ context.Context, _ *pass, names []string) (map[string]string, error) {
		out := map[string]string{}
		for _, n := range names {
			if c, ok := roles[n]; ok {
				out[n] = c
			}
		}
		return out, nil
	}
}

func TestManagedRolesAppliesOnceThenNothing(t *testing.T) {
	cs := fake.NewClientset(&cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}})
	p := testPass()
	p.deps = &deps{pg: cs, lookupRoles: lookupFixed(nil)}
	p.obs = &observation{databases: []*pgv1.PostgresDatabase{claimant("app", "uid-1", time.Hour, "orders")}}
	p.contracts.CNPGCluster = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}}
	c := managedRolesComponent{}
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	applied := p.contracts.CNPGCluster
	if applied.Spec.Managed == nil || len(applied.Spec.Managed.Roles) != 2 {
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
	if h.Phase != pgv1.PhaseReady || p.status.ManagedRolesStatus == nil || len(p.status.ManagedRolesStatus.Owners) != 2 {
		t.Fatalf("health %+v status %+v", h, p.status.ManagedRolesStatus)
	}
}

// A role that exists in Postgres without setpoint's marker for the
// claimant is never handed to CNPG; one with the claimant's own marker
// (retained for it) is.
func TestExistingRolesAreNotTakenOver(t *testing.T) {
	cs := fake.NewClientset(&cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}})
	p := testPass()
	p.deps = &deps{pg: cs, lookupRoles: lookupFixed(map[string]string{
		"orders_admin":  "",                                                // made by hand
		"orders_rw":     "managed by setpoint for PostgresDatabase ns/old", // kept for another object
		"billing_admin": "managed by setpoint for PostgresDatabase ns/app", // kept for this one
	})}
	p.obs = &observation{databases: []*pgv1.PostgresDatabase{claimant("app", "uid-1", time.Hour, "orders", "billing")}}
	p.contracts.CNPGCluster = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}}
	c := managedRolesComponent{}
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if got := roleNames(p.contracts.CNPGCluster.Spec.Managed.Roles); !slices.Equal(got, []string{"billing_admin", "billing_rw"}) {
		t.Fatalf("managed roles = %v", got)
	}
	c.Observe(t.Context(), p, nil)
	st := p.status.ManagedRolesStatus
	msgs := map[string]string{}
	for _, cf := range st.Conflicts {
		if cf.Claimant.Name != "app" || cf.Owner.Name != "" {
			t.Errorf("conflict %+v", cf)
		}
		msgs[cf.Role] = cf.Message
	}
	if !strings.Contains(msgs["orders_admin"], "exists in Postgres and was not created by setpoint") ||
		!strings.Contains(msgs["orders_rw"], "created by setpoint for PostgresDatabase ns/old") {
		t.Fatalf("conflicts = %+v", st.Conflicts)
	}
}

// A role still listed from its previous owner (retained, and the cluster
// has not yet dropped it from the list) is checked again when another
// object claims it.
func TestRoleChangingHandsIsVerified(t *testing.T) {
	cur := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}, Spec: cnpgv1.ClusterSpec{
		Managed: &cnpgv1.ManagedConfiguration{Roles: []cnpgv1.RoleConfiguration{{Name: "orders_admin"}, {Name: "orders_rw"}}}}}
	cs := fake.NewClientset(cur)
	p := testPass()
	kept := controller.PostgresMarker("ns", "first")
	p.deps = &deps{pg: cs, lookupRoles: lookupFixed(map[string]string{"orders_admin": kept, "orders_rw": kept})}
	p.status.ManagedRolesStatus = &pgv1.ManagedRolesStatus{Owners: []pgv1.RoleOwner{
		{Role: "orders_admin", Owner: pgv1.ObjectOwner{Name: "first", UID: "uid-1"}},
		{Role: "orders_rw", Owner: pgv1.ObjectOwner{Name: "first", UID: "uid-1"}},
	}}
	p.obs = &observation{databases: []*pgv1.PostgresDatabase{claimant("second", "uid-2", 0, "orders")}}
	p.contracts.CNPGCluster = cur
	if err := (managedRolesComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if m := p.contracts.CNPGCluster.Spec.Managed; m == nil || len(m.Roles) != 0 {
		t.Fatalf("roles handed to another object: %+v", m)
	}
	if len(p.roles.conflicts) != 2 {
		t.Fatalf("conflicts = %+v", p.roles.conflicts)
	}
}
