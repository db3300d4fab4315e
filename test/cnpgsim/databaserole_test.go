package cnpgsim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// roleAttributes is how Postgres has a role, in one comparable string.
const roleAttributesSQL = `
SELECT r.rolcanlogin || ' ' || r.rolinherit || ' ' || r.rolcreatedb || ' ' || r.rolconnlimit || ' ' ||
       coalesce(shobj_description(r.oid, 'pg_authid'), '-') || ' ' ||
       coalesce(array_to_string(ARRAY(SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                                      WHERE m.member = r.oid ORDER BY 1), ','), '')
FROM pg_roles r WHERE rolname = $1`

func TestDatabaseRole(t *testing.T) {
	ns := newNamespace(t)
	basicAuth(t, ns, "app-pw", "app", "first-Pa$$'word")
	newCluster(t, ns, "dbr", func(c *cnpgv1.Cluster) {
		c.Spec.Managed = &cnpgv1.ManagedConfiguration{Roles: []cnpgv1.RoleConfiguration{{Name: "inline_owner", Login: boolPtr(true)}}}
	})
	limit := int64(5)
	// Created before the Cluster is ready: it waits for the primary.
	newDatabaseRole(t, ns, "app", "dbr", "app", withPasswordSecret("app-pw"), reclaim("delete"), func(r *cnpgv1.DatabaseRole) {
		r.Spec.ConnectionLimit = &limit
		r.Spec.CreateDB = true
		r.Spec.Comment = "it's the app"
		r.Spec.InRoles = []string{"pg_monitor"}
	})
	waitHealthy(t, ns, "dbr")

	t.Run("created, applied, logs in with the Secret's password", func(t *testing.T) {
		r := waitDatabaseRole(t, ns, "app", roleApplied)
		if got, want := r.Status.SecretResourceVersion, secretVersion(t, ns, "app-pw"); got != want {
			t.Errorf("secretResourceVersion = %q, want the Secret's %q", got, want)
		}
		c := meta.FindStatusCondition(r.Status.Conditions, "PasswordSecretChange")
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != "ChangeDetected" || c.Message != r.Status.SecretResourceVersion {
			t.Errorf("PasswordSecretChange condition = %+v", c)
		}
		if got := superQuery[string](t, ns, "dbr", "postgres", roleAttributesSQL, "app"); got != "true true true 5 it's the app pg_monitor" {
			t.Errorf("app in Postgres = %q", got)
		}
		if err := canLogin(t, ns, "dbr", "app", "first-Pa$$'word"); err != nil {
			t.Errorf("login: %v", err)
		}
	})
	t.Run("a new password in the Secret is applied", func(t *testing.T) {
		setPassword(t, ns, "app-pw", `second\pass`)
		eventually(t, 20*time.Second, "new password", func() error { return canLogin(t, ns, "dbr", "app", `second\pass`) })
		if canLogin(t, ns, "dbr", "app", "first-Pa$$'word") == nil {
			t.Error("the old password still works")
		}
		want := secretVersion(t, ns, "app-pw")
		waitDatabaseRole(t, ns, "app", func(r *cnpgv1.DatabaseRole) error {
			if r.Status.SecretResourceVersion != want {
				return fmt.Errorf("secretResourceVersion = %q, want %q", r.Status.SecretResourceVersion, want)
			}
			return roleApplied(r)
		})
		assertNotInServerLogs(t, "first-Pa$$'word", `second\pass`)
	})
	t.Run("inRoles and comment changes are applied", func(t *testing.T) {
		updateDatabaseRole(t, ns, "app", func(r *cnpgv1.DatabaseRole) {
			r.Spec.InRoles = []string{"pg_read_all_data", "pg_signal_backend"}
			r.Spec.Comment = ""
			r.Spec.CreateDB = false
		})
		waitDatabaseRole(t, ns, "app", roleApplied)
		if got := superQuery[string](t, ns, "dbr", "postgres", roleAttributesSQL, "app"); got != "true true false 5 - pg_read_all_data,pg_signal_backend" {
			t.Errorf("app in Postgres = %q", got)
		}
	})
	t.Run("a name in managed.roles stays the Cluster's", func(t *testing.T) {
		newDatabaseRole(t, ns, "inline", "dbr", "inline_owner", func(r *cnpgv1.DatabaseRole) { r.Spec.Comment = "from the object" })
		r := waitDatabaseRole(t, ns, "inline", roleFailedWith("database role is already managed by the CNPG cluster"))
		if slices.Contains(r.Finalizers, roleFinalizer) || r.Status.ObservedGeneration != 0 {
			t.Errorf("finalizers %q, observedGeneration %d: CNPG stops before either", r.Finalizers, r.Status.ObservedGeneration)
		}
		if got := superQuery[string](t, ns, "dbr", "postgres", roleAttributesSQL, "inline_owner"); got != "true true false -1 - " {
			t.Errorf("inline_owner in Postgres = %q: the DatabaseRole changed it", got)
		}
	})
	t.Run("a second object for one role is refused and does not drop it", func(t *testing.T) {
		newDatabaseRole(t, ns, "app-again", "dbr", "app", reclaim("delete"))
		waitDatabaseRole(t, ns, "app-again", roleFailedWith(`"app" is already managed by object "app"`))
		deleteDatabaseRole(t, ns, "app-again")
		waitDatabaseRoleGone(t, ns, "app-again")
		if !pgRoleExists(t, ns, "dbr", "app") {
			t.Error("deleting the refused duplicate dropped the role")
		}
		if err := canLogin(t, ns, "dbr", "app", `second\pass`); err != nil {
			t.Errorf("app after the duplicate: %v", err)
		}
	})
	t.Run("a role nobody manages is taken over", func(t *testing.T) {
		superExec(t, ns, "dbr", "CREATE ROLE legacy NOLOGIN CONNECTION LIMIT 3 IN ROLE pg_monitor")
		newDatabaseRole(t, ns, "legacy", "dbr", "legacy", func(r *cnpgv1.DatabaseRole) { r.Spec.Login = true })
		waitDatabaseRole(t, ns, "legacy", roleApplied)
		if got := superQuery[string](t, ns, "dbr", "postgres", roleAttributesSQL, "legacy"); got != "true true false -1 - " {
			t.Errorf("legacy in Postgres = %q", got)
		}
	})
	t.Run("managed.roles taking a role over later is reported, and letting it go re-applies", func(t *testing.T) {
		gen := getDatabaseRole(t, ns, "legacy").Generation
		updateCluster(t, ns, "dbr", func(c *cnpgv1.Cluster) {
			c.Spec.Managed.Roles = append(c.Spec.Managed.Roles, cnpgv1.RoleConfiguration{Name: "legacy", Login: boolPtr(true)})
		})
		r := waitDatabaseRole(t, ns, "legacy", roleFailedWith("database role is already managed by the CNPG cluster"))
		if r.Status.ObservedGeneration != gen {
			t.Errorf("observedGeneration = %d, want %d kept", r.Status.ObservedGeneration, gen)
		}
		updateCluster(t, ns, "dbr", func(c *cnpgv1.Cluster) { c.Spec.Managed.Roles = c.Spec.Managed.Roles[:1] })
		waitDatabaseRole(t, ns, "legacy", roleApplied)
	})
	t.Run("reported failures", func(t *testing.T) {
		basicAuth(t, ns, "wrong-pw", "someone_else", "x")
		newDatabaseRole(t, ns, "nosecret", "dbr", "nosecret", withPasswordSecret("absent"))
		newDatabaseRole(t, ns, "mismatch", "dbr", "mismatch", withPasswordSecret("wrong-pw"))
		newDatabaseRole(t, ns, "orphan", "dbr", "orphan", func(r *cnpgv1.DatabaseRole) { r.Spec.InRoles = []string{"nobody"} })
		waitDatabaseRole(t, ns, "nosecret", roleFailedWith(`secrets "absent" not found`))
		waitDatabaseRole(t, ns, "mismatch", roleFailedWith(`while getting the role password: the username in secret "wrong-pw" does not match role "mismatch"`))
		waitDatabaseRole(t, ns, "orphan", roleFailedWith(`while creating role orphan with role reconciler: ERROR: role "nobody" does not exist (SQLSTATE 42704)`))
	})
	t.Run("reclaim delete drops the role, retain keeps it", func(t *testing.T) {
		newDatabaseRole(t, ns, "keeper", "dbr", "keeper") // the CRD defaults retain
		if got := waitDatabaseRole(t, ns, "keeper", roleApplied).Spec.DatabaseRoleReclaimPolicy; got != "retain" {
			t.Errorf("default reclaim policy = %q", got)
		}
		deleteDatabaseRole(t, ns, "app")
		deleteDatabaseRole(t, ns, "keeper")
		waitDatabaseRoleGone(t, ns, "app")
		waitDatabaseRoleGone(t, ns, "keeper")
		if pgRoleExists(t, ns, "dbr", "app") {
			t.Error("app (reclaim delete) still exists")
		}
		if !pgRoleExists(t, ns, "dbr", "keeper") {
			t.Error("keeper (reclaim retain) was dropped")
		}
	})
	t.Run("a role that owns objects is not dropped and holds the object", func(t *testing.T) {
		newDatabaseRole(t, ns, "owner", "dbr", "owner", reclaim("delete"))
		waitDatabaseRole(t, ns, "owner", roleApplied)
		superExec(t, ns, "dbr", "CREATE DATABASE owned_db OWNER owner")
		deleteDatabaseRole(t, ns, "owner")
		r := waitDatabaseRole(t, ns, "owner", roleFailedWith(
			`while deleting role owner with role reconciler: ERROR: role "owner" cannot be dropped because some objects depend on it (SQLSTATE 2BP01)`))
		if !slices.Contains(r.Finalizers, roleFinalizer) || r.DeletionTimestamp == nil {
			t.Errorf("finalizers %q, deletionTimestamp %v: the object must wait", r.Finalizers, r.DeletionTimestamp)
		}
		superExec(t, ns, "dbr", "DROP DATABASE owned_db")
		waitDatabaseRoleGone(t, ns, "owner")
		if pgRoleExists(t, ns, "dbr", "owner") {
			t.Error("owner still exists")
		}
	})
}

// The CRD's CEL rules refuse what CNPG will not manage; no webhook is
// involved (CNPG 1.30 has none for DatabaseRole).
func TestDatabaseRoleRefusedByTheCRD(t *testing.T) {
	ns := newNamespace(t)
	for _, c := range []struct {
		name, role string
		mutate     func(*cnpgv1.DatabaseRole)
		want       string
	}{
		{"postgres", "postgres", nil, "the role name postgres is reserved"},
		{"replica", "streaming_replica", nil, "the role name streaming_replica is reserved"},
		{"pg", "pg_mine", nil, "role names starting with pg_ are reserved by PostgreSQL"},
		{"cnpg", "cnpg_mine", nil, "role names starting with cnpg_ are reserved by the operator"},
		{"absent", "gone", func(r *cnpgv1.DatabaseRole) { r.Spec.Ensure = cnpgv1.EnsureAbsent },
			"ensure: absent is not supported for DatabaseRole; delete the resource with databaseRoleReclaimPolicy: delete instead"},
		{"both", "both", func(r *cnpgv1.DatabaseRole) {
			r.Spec.PasswordSecret = &cnpgv1.LocalObjectReference{Name: "x"}
			r.Spec.DisablePassword = true
		}, "passwordSecret and disablePassword are mutually exclusive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mutate []func(*cnpgv1.DatabaseRole)
			if c.mutate != nil {
				mutate = append(mutate, c.mutate)
			}
			_, err := pg.CNPGV1().DatabaseRoles(ns).Create(t.Context(), dbRole(ns, c.name, "any", c.role, mutate...), metav1.CreateOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("create: %v, want %q", err, c.want)
			}
		})
	}
}

// A DatabaseRole for a Cluster that does not exist waits untouched (no
// instance manager runs for it), is applied once the Cluster is there, and
// is released, as CNPG's operator does, when the Cluster is deleted.
func TestDatabaseRoleFollowsItsCluster(t *testing.T) {
	ns := newNamespace(t)
	basicAuth(t, ns, "late-pw", "late", "late-secret")
	newDatabaseRole(t, ns, "late", "later", "late", withPasswordSecret("late-pw"), reclaim("delete"))
	// The operator's condition is written in the same pass as the
	// instance manager's part would be: once it is there, the stand-in
	// has looked at the object.
	r := waitDatabaseRole(t, ns, "late", func(r *cnpgv1.DatabaseRole) error {
		if meta.FindStatusCondition(r.Status.Conditions, "PasswordSecretChange") == nil {
			return fmt.Errorf("no PasswordSecretChange condition: %+v", r.Status)
		}
		return nil
	})
	if r.Status.Applied != nil || r.Status.Message != "" || len(r.Finalizers) != 0 {
		t.Errorf("without its Cluster: status %+v, finalizers %q", r.Status, r.Finalizers)
	}

	newCluster(t, ns, "later")
	waitHealthy(t, ns, "later")
	waitDatabaseRole(t, ns, "late", roleApplied)
	if err := canLogin(t, ns, "later", "late", "late-secret"); err != nil {
		t.Errorf("login: %v", err)
	}

	if err := pg.CNPGV1().Clusters(ns).Delete(t.Context(), "later", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete cluster: %v", err)
	}
	// The mark and the finalizer's removal are two writes: wait for both.
	waitDatabaseRole(t, ns, "late", func(r *cnpgv1.DatabaseRole) error {
		if err := roleFailedWith("cluster resource has been deleted, skipping reconciliation")(r); err != nil {
			return err
		}
		if r.Status.ObservedGeneration != 0 || slices.Contains(r.Finalizers, roleFinalizer) {
			return fmt.Errorf("observedGeneration %d, finalizers %q", r.Status.ObservedGeneration, r.Finalizers)
		}
		return nil
	})
	deleteDatabaseRole(t, ns, "late")
	waitDatabaseRoleGone(t, ns, "late")
}
