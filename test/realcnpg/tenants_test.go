package realcnpg

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The tenant-isolation steps of TestDatabaseBecomesReadyOnRealCNPG, on its
// cluster shop and its PostgresDatabase app (database orders, with a
// read-only role): real CNPG creates the databases and roles, setpoint
// closes each database to the cluster's other roles.

// tenantsApart adds a second tenant, teamb, on the same cluster: neither
// tenant's roles can enter the other's database, PUBLIC holds nothing on
// orders, and orders' own roles still work (the caller checked them).
func tenantsApart(t *testing.T, ns string) {
	kit.CreateDatabase(t, ns, "teamb", "shop", pgv1.DatabaseSpec{Name: "teamb"})
	db := kit.WaitDatabase(t, ns, "teamb", pgv1.PhaseReady, 3*time.Minute)
	if c := meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionPrivilegesReady); c == nil || c.Reason != pgv1.ReasonPrivilegesIsolated {
		t.Errorf("teamb PrivilegesReady = %+v", c)
	}
	kit.DeniedEntry(t, ns, "shop", "orders", "teamb_rw", kit.Password(t, ns, "teamb-teamb-rw"))
	kit.DeniedEntry(t, ns, "shop", "orders", "teamb_admin", kit.Password(t, ns, "teamb-teamb-admin"))
	kit.DeniedEntry(t, ns, "shop", "teamb", "orders_rw", kit.Password(t, ns, "app-orders-rw"))
	kit.DeniedEntry(t, ns, "shop", "teamb", "orders_ro", kit.Password(t, ns, "app-orders-ro"))

	admin := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	var open bool
	err := admin.QueryRow(t.Context(), `SELECT has_database_privilege('public', 'orders', 'CONNECT')
		OR has_database_privilege('public', 'orders', 'TEMPORARY')
		OR has_schema_privilege('public', 'public', 'CREATE')
		OR has_schema_privilege('teamb_admin', 'public', 'CREATE')`).Scan(&open)
	if err != nil || open {
		t.Errorf("PUBLIC or teamb_admin holds a right on orders: %v %v", open, err)
	}
	rw := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-rw")
	if _, err := rw.Exec(t.Context(), "CREATE TEMP TABLE scratch (id int)"); err != nil {
		t.Errorf("orders_rw lost its temporary tables: %v", err)
	}
	kit.DeleteDatabase(t, ns, "teamb")
}

// privilegesTakenBack gives orders_rw superuser, createrole, bypassrls, two
// powerful memberships and an expiry on its DatabaseRole, as a user with
// edit rights in the namespace could: setpoint sets each back, real CNPG
// applies the role unprivileged again, and the database is Ready.
func privilegesTakenBack(t *testing.T, ns string) {
	patch := `{"spec":{"superuser":true,"createrole":true,"bypassrls":true,"validUntil":"2099-01-01T00:00:00Z",
		"inRoles":["pg_read_server_files","pg_execute_server_program"]}}`
	if _, err := pg.CNPGV1().DatabaseRoles(ns).Patch(t.Context(), "shop.orders-rw", types.MergePatchType, []byte(patch),
		metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	admin := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	kit.Eventually(t, 2*time.Minute, "orders_rw unprivileged again, on its DatabaseRole and in Postgres", func(ctx context.Context) (bool, string, error) {
		r, err := pg.CNPGV1().DatabaseRoles(ns).Get(ctx, "shop.orders-rw", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		s := r.Spec
		if s.Superuser || s.CreateRole || s.BypassRLS || s.ValidUntil != nil || len(s.InRoles) > 0 || r.Status.ObservedGeneration != r.Generation {
			return false, fmt.Sprintf("DatabaseRole spec %+v, status %+v", s, r.Status), nil
		}
		var super, createRole, bypass, expires, member bool
		err = admin.QueryRow(ctx, `SELECT rolsuper, rolcreaterole, rolbypassrls,
			rolvaliduntil IS NOT NULL AND rolvaliduntil <> 'infinity',
			pg_has_role('orders_rw', 'pg_read_server_files', 'MEMBER') OR pg_has_role('orders_rw', 'pg_execute_server_program', 'MEMBER')
			FROM pg_roles WHERE rolname = 'orders_rw'`).Scan(&super, &createRole, &bypass, &expires, &member)
		seen := fmt.Sprintf("in Postgres: superuser %v, createrole %v, bypassrls %v, expires %v, member %v", super, createRole, bypass, expires, member)
		return err == nil && !super && !createRole && !bypass && !expires && !member, seen, err
	})
	kit.Eventually(t, 30*time.Second, "a RolePrivilegesReverted Event", func(ctx context.Context) (bool, string, error) {
		evs, err := kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=app,reason=" + pgv1.EventRolePrivilegesReverted})
		return err == nil && len(evs.Items) > 0, fmt.Sprint(err), err
	})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 2*time.Minute)
	if _, err := kit.Login(t, ns, "shop", "orders", "orders_rw", kit.Password(t, ns, "app-orders-rw")); err != nil {
		t.Errorf("orders_rw cannot log in after the repair: %v", err)
	}
}
