package cluster

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// adoptRoles runs the managed roles component once for dbs on a server
// whose roles have these comments, and returns the pass.
func adoptRoles(t *testing.T, roles map[string]string, dbs ...*pgv1.PostgresDatabase) *pass {
	t.Helper()
	cs := fake.NewClientset(&cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}})
	p := testPass()
	p.deps = &deps{pg: cs, lookupRoles: lookupFixed(roles)}
	p.obs = &observation{databases: dbs}
	p.contracts.CNPGCluster = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}}
	if err := (managedRolesComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// With adoptFrom, exactly the roles marked for the named object are
// handed to CNPG — with the adopter's marker and password Secret, which
// re-marks them and replaces the restored password. Roles marked for
// anyone else, or unmarked, stay refused.
func TestAdoptFromTakesOnlyTheNamedObjectsRoles(t *testing.T) {
	db := claimant("copy-app", "uid-2", time.Hour, "orders", "billing", "stock")
	db.Spec.AdoptFrom = "app"
	p := adoptRoles(t, map[string]string{
		"orders_admin":  controller.PostgresMarker("ns", "app"),
		"orders_rw":     controller.PostgresMarker("ns", "app"),
		"billing_admin": controller.PostgresMarker("ns", "other"),
		"billing_rw":    "",
		"stock_admin":   controller.PostgresMarker("elsewhere", "app"),
	}, db)
	roles := p.contracts.CNPGCluster.Spec.Managed.Roles
	if got := roleNames(roles); !slices.Equal(got, []string{"orders_admin", "orders_rw", "stock_rw"}) {
		t.Fatalf("managed roles = %v", got)
	}
	for _, r := range roles[:2] {
		if r.Comment != controller.PostgresMarker("ns", "copy-app") || r.PasswordSecret == nil || !strings.HasPrefix(r.PasswordSecret.Name, "copy-app-orders-") {
			t.Errorf("adopted role %s: comment %q, password Secret %+v", r.Name, r.Comment, r.PasswordSecret)
		}
	}
	msgs := map[string]string{}
	for _, c := range p.roles.conflicts {
		msgs[c.Role] = c.Message
	}
	for role, want := range map[string]string{
		"billing_admin": "spec.adoptFrom takes over only what setpoint marked for PostgresDatabase ns/app",
		"billing_rw":    "was not created by setpoint",
		"stock_admin":   "PostgresDatabase elsewhere/app",
	} {
		if !strings.Contains(msgs[role], want) {
			t.Errorf("%s: conflict %q, want it to contain %q", role, msgs[role], want)
		}
	}
}

// While the object adoptFrom names uses this cluster, its roles are its
// own: nothing is taken from it, even before it claims them.
func TestAdoptFromNeverTakesFromAnObjectOnTheCluster(t *testing.T) {
	src := claimant("app", "uid-1", 0, "billing") // claims other roles only
	db := claimant("copy-app", "uid-2", time.Hour, "orders")
	db.Spec.AdoptFrom = "app"
	marked := controller.PostgresMarker("ns", "app")
	p := adoptRoles(t, map[string]string{"orders_admin": marked, "orders_rw": marked}, src, db)
	if got := roleNames(p.contracts.CNPGCluster.Spec.Managed.Roles); !slices.Equal(got, []string{"billing_admin", "billing_rw"}) {
		t.Fatalf("managed roles = %v", got)
	}
	for _, c := range p.roles.conflicts {
		if c.Claimant.Name != "copy-app" || !strings.Contains(c.Message, `while PostgresDatabase "app" uses this cluster`) {
			t.Errorf("conflict %+v", c)
		}
	}
	if len(p.roles.conflicts) != 2 {
		t.Fatalf("conflicts = %+v", p.roles.conflicts)
	}
}

// Without adoptFrom, a role marked for another object is refused and the
// message names the opt-in.
func TestMarkedRoleNamesTheAdoptFromOptIn(t *testing.T) {
	marked := controller.PostgresMarker("ns", "app")
	p := adoptRoles(t, map[string]string{"orders_admin": marked, "orders_rw": marked}, claimant("intruder", "uid-3", 0, "orders"))
	if m := p.contracts.CNPGCluster.Spec.Managed; m != nil && len(m.Roles) != 0 {
		t.Fatalf("managed roles = %v", roleNames(m.Roles))
	}
	if len(p.roles.conflicts) != 2 || !strings.Contains(p.roles.conflicts[0].Message, "spec.adoptFrom: app") {
		t.Fatalf("conflicts = %+v", p.roles.conflicts)
	}
}

// PostgresDatabases refused the restored roles do not hold them from the
// one with adoptFrom created after them: the role goes to the adopter,
// each refused one gets its own RoleExists conflict, and the next pass
// keeps the adopter as owner without asking Postgres again.
func TestRefusedClaimantDoesNotHoldTheAdoptersRoles(t *testing.T) {
	intruder := claimant("intruder", "uid-1", time.Hour, "orders")
	wrong := claimant("wrong", "uid-3", 30*time.Minute, "orders")
	wrong.Spec.AdoptFrom = "nobody"
	db := claimant("copy-app", "uid-2", time.Minute, "orders")
	db.Spec.AdoptFrom = "app"
	marked := controller.PostgresMarker("ns", "app")
	p := adoptRoles(t, map[string]string{"orders_admin": marked, "orders_rw": marked}, intruder, wrong, db)
	roles := p.contracts.CNPGCluster.Spec.Managed.Roles
	if got := roleNames(roles); !slices.Equal(got, []string{"orders_admin", "orders_rw"}) {
		t.Fatalf("managed roles = %v", got)
	}
	for _, r := range roles {
		if r.Comment != controller.PostgresMarker("ns", "copy-app") || r.PasswordSecret == nil || !strings.HasPrefix(r.PasswordSecret.Name, "copy-app-orders-") {
			t.Errorf("role %s: comment %q, Secret %+v", r.Name, r.Comment, r.PasswordSecret)
		}
	}
	for _, o := range p.roles.owners {
		if o.Owner.Name != "copy-app" {
			t.Errorf("owner %+v", o)
		}
	}
	want := map[string]string{"intruder": "spec.adoptFrom: app", "wrong": "takes over only what setpoint marked for PostgresDatabase ns/nobody"}
	for _, c := range p.roles.conflicts {
		if c.Owner.Name != "" || want[c.Claimant.Name] == "" || !strings.Contains(c.Message, want[c.Claimant.Name]) {
			t.Errorf("conflict %+v", c)
		}
	}
	if len(p.roles.conflicts) != 4 {
		t.Fatalf("conflicts = %+v", p.roles.conflicts)
	}

	// Next pass: the adopter is the recorded owner; no role is new.
	(managedRolesComponent{}).Observe(t.Context(), p, nil)
	p.deps.lookupRoles = func(context.Context, *pass, []string) (map[string]string, error) {
		t.Fatal("asked Postgres again for roles that did not change hands")
		return nil, nil
	}
	if err := (managedRolesComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	for _, o := range p.roles.owners {
		if o.Owner.Name != "copy-app" {
			t.Errorf("second pass owner %+v", o)
		}
	}
	for _, c := range p.roles.conflicts {
		if c.Claimant.Name == "copy-app" || c.Owner.Name != "copy-app" {
			t.Errorf("second pass conflict %+v", c)
		}
	}
	if len(p.roles.conflicts) != 4 {
		t.Fatalf("second pass conflicts = %+v", p.roles.conflicts)
	}
}

// A role already handed to CNPG with its claimant's marker is not asked
// about again when the status that recorded its owner was lost: CNPG may
// be creating it (role first, comment next), and a half-made role must not
// read as one setpoint did not create. A role listed with another
// object's marker is still checked.
func TestRoleHandedToCNPGIsNotCheckedAgain(t *testing.T) {
	db := claimant("app", "uid-1", time.Minute, "orders")
	cs := fake.NewClientset(&cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}})
	p := testPass()
	var asked []string
	p.deps = &deps{pg: cs, lookupRoles: func(_ context.Context, _ *pass, names []string) (map[string]string, error) {
		asked = append(asked, names...)
		return map[string]string{"orders_rw": ""}, nil // half made: created, no comment yet
	}}
	p.obs = &observation{databases: []*pgv1.PostgresDatabase{db}}
	p.contracts.CNPGCluster = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}}
	p.contracts.CNPGCluster.Spec.Managed = &cnpgv1.ManagedConfiguration{Roles: []cnpgv1.RoleConfiguration{
		{Name: "orders_admin", Comment: controller.PostgresMarker("ns", "other")},
		{Name: "orders_rw", Comment: controller.PostgresMarker("ns", "app")},
	}}
	if err := (managedRolesComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []string{"orders_admin"}) {
		t.Errorf("asked Postgres about %v, want only orders_admin", asked)
	}
	if len(p.roles.conflicts) != 0 {
		t.Errorf("conflicts = %+v", p.roles.conflicts)
	}
	if got := roleNames(p.contracts.CNPGCluster.Spec.Managed.Roles); !slices.Equal(got, []string{"orders_admin", "orders_rw"}) {
		t.Errorf("managed roles = %v", got)
	}
}
