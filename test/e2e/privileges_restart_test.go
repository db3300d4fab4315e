package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// An operator killed while it applies a database's privileges leaves the
// old privileges or the new, never a mix: the plan runs in one
// transaction. The test holds the apply in the middle rather than racing
// it: a session of the test changes the last table the plan grants on
// (ALTER TABLE, uncommitted), so the operator's transaction, having
// granted on every table before it, waits on that one; the test sees it
// waiting (pg_stat_activity: a GRANT waiting on a lock, in a transaction
// that has written) and kills the operator there. Once Postgres has ended
// the killed session, the privileges are exactly the old ones; a new
// operator brings them to exactly the new ones.
func TestPrivilegesApplyKilledMidwayIsAllOrNothing(t *testing.T) {
	ns := kit.Namespace(t)
	op := readyCluster(t, ns)
	const tables = 30
	tableGrant := func(privs ...pgv1.Privilege) pgv1.DatabaseSpec {
		return pgv1.DatabaseSpec{Name: "shop", Schemas: []pgv1.SchemaSpec{{Name: "data"}},
			Roles: []pgv1.DatabaseRoleSpec{{Name: "rw", Grants: []pgv1.Grant{
				{Object: pgv1.GrantOnSchema, Schema: "data", Privileges: []pgv1.Privilege{"USAGE"}},
				{Object: pgv1.GrantOnTables, Schema: "data", Privileges: privs},
			}}}}
	}
	kit.CreateDatabase(t, ns, "atomic", "shop", tableGrant("SELECT"))
	kit.WaitDatabase(t, ns, "atomic", pgv1.PhaseReady, 120*time.Second)
	waitPrivileges(t, ns, "atomic", pgv1.ReasonPrivilegesIsolated)
	admin := connectAs(t, ns, "atomic-shop-config", "atomic-shop-admin")
	for i := range tables {
		execSQL(t, admin, fmt.Sprintf("CREATE TABLE data.t%02d (id int)", i))
	}
	// What rw holds in data, tables and default privileges.
	held := func() []string {
		t.Helper()
		rows, err := admin.Query(t.Context(), `SELECT c.relname || ' ' || a.privilege_type FROM pg_class c, aclexplode(c.relacl) a
			WHERE c.relnamespace = 'data'::regnamespace AND a.grantee = 'shop_rw'::regrole
			UNION ALL SELECT 'default ' || a.privilege_type FROM pg_default_acl d, aclexplode(d.defaclacl) a
			WHERE d.defaclnamespace = 'data'::regnamespace AND d.defaclobjtype = 'r' AND a.grantee = 'shop_rw'::regrole`)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got
	}
	want := func(privs ...string) []string {
		var out []string
		for _, p := range privs {
			for i := range tables {
				out = append(out, fmt.Sprintf("t%02d %s", i, p))
			}
			out = append(out, "default "+p)
		}
		slices.Sort(out)
		return out
	}
	old, next := want("SELECT"), want("SELECT", "INSERT", "UPDATE")
	if got := held(); !slices.Equal(got, old) {
		t.Fatalf("before the change rw holds %v, want %v", got, old)
	}

	// An operator whose statements may wait long: the kill, not its
	// timeout, ends the transaction.
	op.signal(syscall.SIGTERM)
	<-op.done
	op = startOperator(t, "patient", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap,
		"--resync-period", "2s", "--postgres-timeout", "3m")

	blocker := connectAs(t, ns, "atomic-shop-config", "atomic-shop-admin")
	tx, err := blocker.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	last := fmt.Sprintf("t%02d", tables-1)
	if _, err := tx.Exec(t.Context(), "ALTER TABLE data."+last+" ADD COLUMN held int"); err != nil {
		t.Fatal(err)
	}
	db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "atomic", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.Spec.Databases[0] = tableGrant("SELECT", "INSERT", "UPDATE")
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var pid int
	kit.Eventually(t, 60*time.Second, "the operator's transaction waiting on "+last+" after writing", func(ctx context.Context) (bool, string, error) {
		var query string
		err := admin.QueryRow(ctx, `SELECT pid, query FROM pg_stat_activity WHERE usename = 'shop_admin' AND pid <> pg_backend_pid()
			AND state = 'active' AND wait_event_type = 'Lock' AND backend_xid IS NOT NULL AND query LIKE 'GRANT %'`).Scan(&pid, &query)
		if err == pgx.ErrNoRows {
			return false, "no waiting GRANT", nil
		}
		if err != nil {
			return false, "", err
		}
		return strings.Contains(query, `"data"."`+last+`"`), query, nil
	})
	op.signal(syscall.SIGKILL)
	<-op.done
	// The killed session's transaction is still open in Postgres, waiting:
	// nothing of it is visible.
	if got := held(); !slices.Equal(got, old) {
		t.Errorf("while the killed apply waits rw holds %v, want the old %v", got, old)
	}
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	kit.Eventually(t, 30*time.Second, "the killed operator's session ended", func(ctx context.Context) (bool, string, error) {
		var n int
		err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&n)
		return n == 0, fmt.Sprintf("%d session(s)", n), err
	})
	if got := held(); !slices.Equal(got, old) {
		t.Fatalf("after the kill rw holds %v, want exactly the old %v: a mix", got, old)
	}

	startOperator(t, "successor", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s")
	waitPrivileges(t, ns, "atomic", pgv1.ReasonPrivilegesIsolated)
	if got := held(); !slices.Equal(got, next) {
		t.Errorf("after the successor's pass rw holds %v, want exactly the new %v", got, next)
	}
}
