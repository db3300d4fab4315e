package cluster

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// <db>_ro is asked for only while the spec sets readOnlyRole and the status
// shows its Secret validated; marked absent (and owned) it goes alone,
// the other roles stay present.
func TestReadOnlyRoleIntent(t *testing.T) {
	db := claimant("app", "uid-1", time.Hour, "orders")
	db.Spec.Databases[0].ReadOnlyRole = true
	all := func(string) bool { return true }
	if got := intentOf(db, all, none); len(got) != 2 {
		t.Fatalf("ro asked before its Secret was validated: %+v", got)
	}
	db.Status.Databases[0].ROSecretRef = &pgv1.LocalObjectReference{Name: "someone-elses"}
	if got := intentOf(db, all, none); len(got) != 2 {
		t.Fatalf("ro asked with a Secret the spec does not imply: %+v", got)
	}
	db.Status.Databases[0].ROSecretRef.Name = "app-orders-ro"
	want := []roleIntent{
		{Name: "orders_admin", Ensure: pgv1.RoleEnsurePresent, Secret: "app-orders-admin"},
		{Name: "orders_rw", Ensure: pgv1.RoleEnsurePresent, Secret: "app-orders-rw"},
		{Name: "orders_ro", Ensure: pgv1.RoleEnsurePresent, Secret: "app-orders-ro"},
	}
	if got := intentOf(db, all, none); !slices.Equal(got, want) {
		t.Fatalf("intent = %+v", got)
	}
	// The flag removed, the removal not yet run: the role the status lists
	// stays asked for, so a Delete still finds it its own.
	db.Spec.Databases[0].ReadOnlyRole = false
	db.Status.Databases[0].Roles = []pgv1.RoleStatus{{Name: "orders_ro", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: &pgv1.LocalObjectReference{Name: "app-orders-ro"}}}
	if got := intentOf(db, all, none); !slices.Equal(got, want) {
		t.Fatalf("intent before the removal ran = %+v", got)
	}
	if got := intentOf(db, func(r string) bool { return r != "orders_ro" }, none); len(got) != 2 {
		t.Fatalf("a listed role the cluster never gave is kept: %+v", got)
	}
	// The role marked absent.
	db.Status.Databases[0].Roles = []pgv1.RoleStatus{{Name: "orders_ro", Ensure: pgv1.RoleEnsureAbsent}}
	want = []roleIntent{{Name: "orders_ro", Ensure: pgv1.RoleEnsureAbsent}, want[0], want[1]}
	if got := intentOf(db, all, none); !slices.Equal(got, want) {
		t.Fatalf("intent while removing ro = %+v", got)
	}
	// Not the cluster's gift to this object: nothing absent, ro not asked.
	if got := intentOf(db, func(string) bool { return false }, none); len(got) != 2 || got[0].Name != "orders_admin" {
		t.Fatalf("absent ro without ownership = %+v", got)
	}
}

// A <db>_ro that Postgres has and setpoint did not create is never handed
// to CNPG: the read-only role is verified like the others, the admin and
// rw roles go ahead.
func TestExistingReadOnlyRoleIsNotTakenOver(t *testing.T) {
	cs := fake.NewClientset(&cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}})
	p := testPass()
	p.deps = &deps{pg: cs, lookupRoles: lookupFixed(map[string]string{"orders_ro": ""})}
	db := claimant("app", "uid-1", time.Hour, "orders")
	db.Spec.Databases[0].ReadOnlyRole = true
	db.Status.Databases[0].ROSecretRef = &pgv1.LocalObjectReference{Name: "app-orders-ro"}
	p.obs = &observation{databases: []*pgv1.PostgresDatabase{db}}
	p.contracts.CNPGCluster = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}}
	c := managedRolesComponent{}
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if got := roleNames(p.contracts.CNPGCluster.Spec.Managed.Roles); !slices.Equal(got, []string{"orders_admin", "orders_rw"}) {
		t.Fatalf("managed roles = %v", got)
	}
	c.Observe(t.Context(), p, nil)
	st := p.status.ManagedRolesStatus
	if len(st.Conflicts) != 1 || st.Conflicts[0].Role != "orders_ro" || !strings.Contains(st.Conflicts[0].Message, "exists in Postgres and was not created by setpoint") {
		t.Fatalf("conflicts = %+v", st.Conflicts)
	}
}

// A database that left the spec keeps the roles its status lists present
// until its controller runs the deletion policy; only the cluster's gifts
// to this object are kept.
func TestRemovedDatabaseKeepsItsRolesUntilCleanup(t *testing.T) {
	db := claimant("app", "uid-1", time.Hour, "orders")
	db.Spec.Databases = nil
	secret := func(s string) *pgv1.LocalObjectReference { return &pgv1.LocalObjectReference{Name: s} }
	db.Status.Databases[0].Roles = []pgv1.RoleStatus{
		{Name: "orders_admin", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: secret("app-orders-admin")},
		{Name: "orders_rw", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: secret("app-orders-rw")},
		{Name: "someone_else", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: secret("x")},
	}
	want := []roleIntent{
		{Name: "orders_admin", Ensure: pgv1.RoleEnsurePresent, Secret: "app-orders-admin"},
		{Name: "orders_rw", Ensure: pgv1.RoleEnsurePresent, Secret: "app-orders-rw"},
	}
	if got := intentOf(db, func(string) bool { return true }, none); !slices.Equal(got, want) {
		t.Fatalf("intent = %+v, want %+v", got, want)
	}
	db.Status.Databases[0].Roles = nil // Retain ran: the entry lists nothing
	if got := intentOf(db, func(string) bool { return true }, none); len(got) != 0 {
		t.Fatalf("intent after Retain = %+v", got)
	}
}
