package e2e_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// roleAttributes reads, as the database's admin, whether role is a
// superuser, may create roles, or is a member of the two roles an attacker
// would add.
func roleAttributes(ctx context.Context, t *testing.T, ns, role string) (privileged bool, err error) {
	t.Helper()
	admin, err := kit.Login(t, ns, "shop", "orders", "orders_admin", kit.Password(t, ns, "app-orders-admin"))
	if err != nil {
		return false, err
	}
	defer admin.Close(context.WithoutCancel(ctx))
	err = admin.QueryRow(ctx, `SELECT rolsuper OR rolcreaterole OR rolbypassrls OR rolvaliduntil IS NOT NULL AND rolvaliduntil <> 'infinity'
		OR pg_has_role($1, 'pg_read_server_files', 'MEMBER') OR pg_has_role($1, 'pg_execute_server_program', 'MEMBER')
		FROM pg_roles WHERE rolname = $1`, role).Scan(&privileged)
	return privileged, err
}

// A user with edit rights in the namespace gives orders_rw superuser,
// createrole, bypassrls, two powerful memberships and an expiry on its
// DatabaseRole. setpoint takes every one back, Postgres shows the role
// unprivileged again, a Warning Event says so, and the database is Ready.
func TestRolePrivilegesGivenByHandAreTakenBack(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)

	patch := `{"spec":{"superuser":true,"createrole":true,"bypassrls":true,"validUntil":"2099-01-01T00:00:00Z",
		"inRoles":["pg_read_server_files","pg_execute_server_program"]}}`
	if _, err := pg.CNPGV1().DatabaseRoles(ns).Patch(t.Context(), "shop.orders-rw", types.MergePatchType, []byte(patch),
		metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	kit.Until(t, 60*time.Second, "orders_rw unprivileged again, on its DatabaseRole and in Postgres", func(ctx context.Context) (bool, error) {
		r, err := pg.CNPGV1().DatabaseRoles(ns).Get(ctx, "shop.orders-rw", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		s := r.Spec
		if s.Superuser || s.CreateRole || s.BypassRLS || s.ValidUntil != nil || len(s.InRoles) > 0 ||
			r.Status.ObservedGeneration != r.Generation {
			return false, nil
		}
		privileged, err := roleAttributes(ctx, t, ns, "orders_rw")
		return err == nil && !privileged, nil
	})
	expectEvent(t, ns, "app", "Warning", pgv1.EventRolePrivilegesReverted)
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 60*time.Second)
	if _, err := kit.Login(t, ns, "shop", "orders", "orders_rw", kit.Password(t, ns, "app-orders-rw")); err != nil {
		t.Errorf("orders_rw cannot log in after the repair: %v", err)
	}
}

// A DatabaseRole of setpoint's deleted by hand does not hang in deletion:
// reclaim retain while the database lives, so CNPG lets the object go and
// keeps the role; setpoint makes the object again, and the role keeps its
// password and its ownership of the database.
func TestDatabaseRoleDeletedByHandComesBack(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	kit.DeletedRoleComesBack(t, ns, 60*time.Second)
}
