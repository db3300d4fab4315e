package realcnpg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// pooledState runs stmt as conn, through PgBouncer in transaction mode
// (the simple protocol, in a transaction rolled back), and returns its
// SQLSTATE, "" on success.
func pooledState(t *testing.T, conn *pgx.Conn, stmt string) string {
	t.Helper()
	simple := pgx.QueryExecModeSimpleProtocol
	if _, err := conn.Exec(t.Context(), "BEGIN", simple); err != nil {
		t.Fatal(err)
	}
	_, err := conn.Exec(t.Context(), stmt, simple)
	if _, rerr := conn.Exec(context.WithoutCancel(t.Context()), "ROLLBACK", simple); rerr != nil {
		t.Fatal(rerr)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return ""
}

// Declared schemas and the fixed roles' grants on real CloudNativePG, used
// through PgBouncer: each role may run what its spec declares and is
// refused the rest by SQLSTATE; a grant made by hand is revoked.
func TestDeclaredSchemasThroughPoolerOnRealCNPG(t *testing.T) {
	ns := kit.Namespace(t)
	class := "pooled-" + ns
	smallClass(t, class, func(s *pgv1.ClusterSettings) {
		s.ConnectionPooler = &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(true), Instances: ptr.To[int32](1), PoolMode: pgv1.PoolModeTransaction}
	})
	createCluster(t, ns, "shop", class)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 8*time.Minute)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true,
		Schemas: []pgv1.SchemaSpec{{Name: "billing"}, {Name: "catalog"}},
		Roles: []pgv1.DatabaseRoleSpec{{Name: "rw", Grants: []pgv1.Grant{
			{Object: pgv1.GrantOnSchema, Schema: "billing", Privileges: []pgv1.Privilege{"USAGE"}},
			{Object: pgv1.GrantOnTables, Schema: "billing", Privileges: []pgv1.Privilege{"SELECT", "INSERT"}},
			{Object: pgv1.GrantOnSequences, Schema: "billing", Privileges: []pgv1.Privilege{"USAGE", "SELECT"}},
		}}}})
	db := kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)
	if c := meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionPrivilegesReady); c == nil || c.Reason != pgv1.ReasonPrivilegesIsolated {
		t.Fatalf("PrivilegesReady = %+v", c)
	}

	admin := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	defer func() { _ = admin.Close(context.WithoutCancel(t.Context())) }()
	for _, ddl := range []string{"CREATE TABLE billing.invoices (id bigserial PRIMARY KEY, total int)",
		"CREATE TABLE catalog.items (id int PRIMARY KEY)"} {
		if _, err := admin.Exec(t.Context(), ddl); err != nil {
			t.Fatalf("admin: %s: %v", ddl, err)
		}
	}
	rw := kit.ConnectAsVia(t, ns, "shop", "shop-pooler-rw", "orders", "app-orders-rw")
	defer func() { _ = rw.Close(context.WithoutCancel(t.Context())) }()
	ro := kit.ConnectAsVia(t, ns, "shop", "shop-pooler-rw", "orders", "app-orders-ro")
	defer func() { _ = ro.Close(context.WithoutCancel(t.Context())) }()
	for _, c := range []struct {
		who  string
		conn *pgx.Conn
		code string
		stmt string
	}{
		{"rw", rw, "", "INSERT INTO billing.invoices (total) VALUES (10)"},
		{"rw", rw, "", "SELECT * FROM billing.invoices"},
		{"rw", rw, "42501", "UPDATE billing.invoices SET total = 0"},
		{"rw", rw, "42501", "DELETE FROM billing.invoices"},
		{"rw", rw, "42501", "CREATE TABLE billing.x (id int)"},
		{"rw", rw, "42501", "SELECT * FROM catalog.items"},
		{"ro", ro, "", "SELECT * FROM billing.invoices"},
		{"ro", ro, "", "SELECT * FROM catalog.items"},
		{"ro", ro, "42501", "INSERT INTO catalog.items VALUES (1)"},
		{"ro", ro, "42501", "CREATE TABLE catalog.y (id int)"},
	} {
		if got := pooledState(t, c.conn, c.stmt); got != c.code {
			t.Errorf("as %s through PgBouncer: %s: SQLSTATE %q, want %q", c.who, c.stmt, got, c.code)
		}
	}

	// A grant by hand is revoked at a later pass, and reported. Nothing in
	// Kubernetes changes with it, so that pass is the resync (10 min by
	// default); an annotation starts one now, as any change of the object
	// does, instead of waiting for it.
	if _, err := admin.Exec(t.Context(), "GRANT UPDATE ON billing.invoices TO orders_rw"); err != nil {
		t.Fatal(err)
	}
	annotate(t, ns, "app", func(name string, patch []byte) error {
		_, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}, "test.setpoint.dev/pass", "after-a-hand-made-grant")
	// The report is the Warning Event and the condition. The pass that
	// revokes can lose its status write (CI saw it: a conflict with the
	// annotation's newer resourceVersion); a later pass reports the drift
	// then (unreportedDrift), so the condition is checked too.
	kit.Eventually(t, 3*time.Minute, "the hand-made grant revoked and reported by an Event", func(ctx context.Context) (bool, string, error) {
		evs, err := kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.name=app,reason=" + pgv1.EventPrivilegesDriftReverted})
		if err != nil {
			return false, "", err
		}
		for _, e := range evs.Items {
			if e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, `UPDATE ON TABLE "billing"."invoices" FROM "orders_rw"`) {
				return true, e.Message, nil
			}
		}
		return false, fmt.Sprintf("%d %s Event(s), none naming the grant", len(evs.Items), pgv1.EventPrivilegesDriftReverted), nil
	})
	kit.Eventually(t, 2*time.Minute, "PrivilegesReady reports the revoked grant", func(ctx context.Context) (bool, string, error) {
		db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "app", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		c := meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionPrivilegesReady)
		if c == nil {
			return false, "no PrivilegesReady condition", nil
		}
		ok := c.Reason == pgv1.ReasonPrivilegesDriftReverted && strings.Contains(c.Message, `UPDATE ON TABLE "billing"."invoices" FROM "orders_rw"`)
		return ok, c.Reason + ": " + c.Message, nil
	})
	if got := pooledState(t, rw, "UPDATE billing.invoices SET total = 0"); got != "42501" {
		t.Errorf("rw UPDATE after the revoke: SQLSTATE %q, want 42501", got)
	}
}
