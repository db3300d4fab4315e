package cnpgsim_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

func TestManagedRoles(t *testing.T) {
	ns := newNamespace(t)
	basicAuth(t, ns, "app-rw-pw", "app_rw", "first-Pa$$'word")
	basicAuth(t, ns, "mismatch-pw", "someone_else", "x")
	limit := int64(7)
	newCluster(t, ns, "rolesdb", func(c *cnpgv1.Cluster) {
		c.Spec.Managed = &cnpgv1.ManagedConfiguration{Roles: []cnpgv1.RoleConfiguration{
			{Name: "app_base", Ensure: cnpgv1.EnsurePresent},
			{
				Name: "app_rw", Ensure: cnpgv1.EnsurePresent, Login: boolPtr(true), Inherit: boolPtr(false),
				ConnectionLimit: &limit, Comment: "it's the app", InRoles: []string{"app_base", "pg_monitor"},
				PasswordSecret: &cnpgv1.LocalObjectReference{Name: "app-rw-pw"},
			},
			{Name: "mismatch", Login: boolPtr(true), PasswordSecret: &cnpgv1.LocalObjectReference{Name: "mismatch-pw"}},
			{Name: "old_role", Ensure: cnpgv1.EnsureAbsent},
		}}
	})
	c := waitHealthy(t, ns, "rolesdb")

	t.Run("status", func(t *testing.T) {
		st := c.Status.ManagedRolesStatus
		if st == nil {
			t.Fatal("no managedRolesStatus")
		}
		if got := st.ByStatus["reconciled"]; !slices.Equal(got, []string{"app_base", "app_rw", "old_role"}) {
			t.Errorf("reconciled = %q", got)
		}
		if got := st.ByStatus["reserved"]; !slices.Equal(got, []string{"postgres", "streaming_replica"}) {
			t.Errorf("reserved = %q", got)
		}
		if got := st.ByStatus["pending-reconciliation"]; !slices.Equal(got, []string{"mismatch"}) {
			t.Errorf("pending = %q", got)
		}
		if msgs := st.CannotReconcile["mismatch"]; len(msgs) != 1 || !strings.Contains(msgs[0], "wrong username 'someone_else'") {
			t.Errorf("cannotReconcile = %q", st.CannotReconcile)
		}
	})
	t.Run("attributes in Postgres", func(t *testing.T) {
		got := superQuery[string](t, ns, "rolesdb", "postgres", `
SELECT r.rolcanlogin || ' ' || r.rolinherit || ' ' || r.rolconnlimit || ' ' || shobj_description(r.oid, 'pg_authid') || ' ' ||
       array_to_string(ARRAY(SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid ORDER BY 1), ',')
FROM pg_roles r WHERE rolname = 'app_rw'`)
		if got != "true false 7 it's the app app_base,pg_monitor" {
			t.Errorf("app_rw = %q", got)
		}
	})
	t.Run("login with the secret's password, then rotation", func(t *testing.T) {
		if _, err := query[int](t, readHostMap(t), ns, "rolesdb", "app_rw", "first-Pa$$'word", "postgres", "SELECT 1"); err != nil {
			t.Fatalf("login: %v", err)
		}
		setPassword(t, ns, "app-rw-pw", `second\pass`)
		eventually(t, 10*time.Second, "rotated password", func() error {
			_, err := query[int](t, readHostMap(t), ns, "rolesdb", "app_rw", `second\pass`, "postgres", "SELECT 1")
			return err
		})
		if _, err := query[int](t, readHostMap(t), ns, "rolesdb", "app_rw", "first-Pa$$'word", "postgres", "SELECT 1"); err == nil {
			t.Error("old password still works")
		}
		assertNotInServerLogs(t, "first-Pa$$'word", `second\pass`, "su-rolesdb")
	})
	t.Run("a password changed in Postgres is set back", func(t *testing.T) {
		// The Secret did not change, the role did (a new pg_authid row
		// version): the stand-in, like CNPG, must not trust what it set last.
		superExec(t, ns, "rolesdb", "ALTER ROLE app_rw PASSWORD 'changed-by-hand'")
		updateCluster(t, ns, "rolesdb", func(c *cnpgv1.Cluster) {
			c.Annotations = map[string]string{"test/resync": "1"}
		})
		eventually(t, 10*time.Second, "the Secret's password again", func() error {
			_, err := query[int](t, readHostMap(t), ns, "rolesdb", "app_rw", `second\pass`, "postgres", "SELECT 1")
			return err
		})
		if _, err := query[int](t, readHostMap(t), ns, "rolesdb", "app_rw", "changed-by-hand", "postgres", "SELECT 1"); err == nil {
			t.Error("the password set by hand still works")
		}
	})
	t.Run("ensure absent drops, membership follows inRoles", func(t *testing.T) {
		updateCluster(t, ns, "rolesdb", func(c *cnpgv1.Cluster) {
			roles := c.Spec.Managed.Roles
			roles[0].Ensure = cnpgv1.EnsureAbsent // app_base
			roles[1].InRoles = []string{"pg_monitor"}
		})
		eventually(t, 10*time.Second, "app_base dropped", func() error {
			got := superQuery[int64](t, ns, "rolesdb", "postgres", "SELECT count(*) FROM pg_roles WHERE rolname = 'app_base'")
			if got != 0 {
				return fmt.Errorf("app_base still exists")
			}
			return nil
		})
	})
	t.Run("FailRole", func(t *testing.T) {
		sim.FailRole(ns, "rolesdb", "app_rw", "injected failure")
		eventually(t, 10*time.Second, "app_rw cannot reconcile", func() error {
			st := getCluster(t, ns, "rolesdb").Status.ManagedRolesStatus
			if msgs := st.CannotReconcile["app_rw"]; !slices.Equal(msgs, []string{"injected failure"}) {
				return fmt.Errorf("cannotReconcile = %q", st.CannotReconcile)
			}
			if !slices.Contains(st.ByStatus["pending-reconciliation"], "app_rw") {
				return fmt.Errorf("byStatus = %q", st.ByStatus)
			}
			return nil
		})
		sim.ClearRoleFailure(ns, "rolesdb", "app_rw")
		eventually(t, 10*time.Second, "app_rw reconciled again", func() error {
			st := getCluster(t, ns, "rolesdb").Status.ManagedRolesStatus
			if _, failing := st.CannotReconcile["app_rw"]; failing || !slices.Contains(st.ByStatus["reconciled"], "app_rw") {
				return fmt.Errorf("status = %+v", st)
			}
			return nil
		})
	})
}

// assertNotInServerLogs checks that no Postgres log holds a secret: only
// SCRAM verifiers reach the servers.
func assertNotInServerLogs(t *testing.T, secrets ...string) {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(sim.Dir(), "*", "postgres.log"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no server logs: %v", err)
	}
	for _, path := range logs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				t.Errorf("%s contains a password", path)
			}
		}
	}
}
