package cnpgsim_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

const roleFinalizer = "cnpg.io/deleteRole"

func dbRole(ns, name, cluster, roleName string, mutate ...func(*cnpgv1.DatabaseRole)) *cnpgv1.DatabaseRole {
	r := &cnpgv1.DatabaseRole{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       cnpgv1.DatabaseRoleSpec{Cluster: cnpgv1.LocalObjectReference{Name: cluster}, Name: roleName},
	}
	for _, m := range mutate {
		m(r)
	}
	return r
}

func newDatabaseRole(t *testing.T, ns, name, cluster, roleName string, mutate ...func(*cnpgv1.DatabaseRole)) {
	t.Helper()
	if _, err := pg.CNPGV1().DatabaseRoles(ns).Create(t.Context(), dbRole(ns, name, cluster, roleName, mutate...),
		metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatalf("create databaserole %s: %v", name, err)
	}
}

func reclaim(policy string) func(*cnpgv1.DatabaseRole) {
	return func(r *cnpgv1.DatabaseRole) { r.Spec.DatabaseRoleReclaimPolicy = policy }
}

func withPasswordSecret(secret string) func(*cnpgv1.DatabaseRole) {
	return func(r *cnpgv1.DatabaseRole) {
		r.Spec.Login = true
		r.Spec.PasswordSecret = &cnpgv1.LocalObjectReference{Name: secret}
	}
}

func getDatabaseRole(t *testing.T, ns, name string) *cnpgv1.DatabaseRole {
	t.Helper()
	r, err := pg.CNPGV1().DatabaseRoles(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get databaserole %s: %v", name, err)
	}
	return r
}

// updateDatabaseRole applies mutate to the latest object, retrying
// conflicts with the Simulator's writes.
func updateDatabaseRole(t *testing.T, ns, name string, mutate func(*cnpgv1.DatabaseRole)) {
	t.Helper()
	eventually(t, 10*time.Second, "update databaserole "+name, func() error {
		r := getDatabaseRole(t, ns, name)
		mutate(r)
		_, err := pg.CNPGV1().DatabaseRoles(ns).Update(t.Context(), r, metav1.UpdateOptions{FieldValidation: "Strict"})
		return err
	})
}

// waitDatabaseRole waits until check accepts the object and returns it.
func waitDatabaseRole(t *testing.T, ns, name string, check func(*cnpgv1.DatabaseRole) error) *cnpgv1.DatabaseRole {
	t.Helper()
	var r *cnpgv1.DatabaseRole
	eventually(t, 20*time.Second, "databaserole "+name, func() error {
		var err error
		if r, err = pg.CNPGV1().DatabaseRoles(ns).Get(t.Context(), name, metav1.GetOptions{}); err != nil {
			return err
		}
		return check(r)
	})
	return r
}

// roleApplied is CNPG's success: applied, no message, this generation,
// and the finalizer in place.
func roleApplied(r *cnpgv1.DatabaseRole) error {
	st := r.Status
	if st.Applied == nil || !*st.Applied || st.Message != "" || st.ObservedGeneration != r.Generation {
		return fmt.Errorf("status = %+v (generation %d)", st, r.Generation)
	}
	if !slices.Contains(r.Finalizers, roleFinalizer) {
		return fmt.Errorf("finalizers = %q", r.Finalizers)
	}
	return nil
}

// roleFailedWith is a failure reported with exactly message.
func roleFailedWith(message string) func(*cnpgv1.DatabaseRole) error {
	return func(r *cnpgv1.DatabaseRole) error {
		if st := r.Status; st.Applied == nil || *st.Applied || st.Message != message {
			return fmt.Errorf("status = %+v, want not applied with %q", st, message)
		}
		return nil
	}
}

func deleteDatabaseRole(t *testing.T, ns, name string) {
	t.Helper()
	if err := pg.CNPGV1().DatabaseRoles(ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete databaserole %s: %v", name, err)
	}
}

func waitDatabaseRoleGone(t *testing.T, ns, name string) {
	t.Helper()
	eventually(t, 20*time.Second, "databaserole "+name+" gone", func() error {
		r, err := pg.CNPGV1().DatabaseRoles(ns).Get(t.Context(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("still there: finalizers %q, status %+v", r.Finalizers, r.Status)
	})
}

func pgRoleExists(t *testing.T, ns, cluster, role string) bool {
	t.Helper()
	return superQuery[int64](t, ns, cluster, "postgres", "SELECT count(*) FROM pg_roles WHERE rolname = $1", role) == 1
}

func canLogin(t *testing.T, ns, cluster, user, password string) error {
	t.Helper()
	_, err := query[int](t, readHostMap(t), ns, cluster, user, password, "postgres", "SELECT 1")
	return err
}

func secretVersion(t *testing.T, ns, name string) string {
	t.Helper()
	s, err := kube.CoreV1().Secrets(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get secret %s: %v", name, err)
	}
	return s.ResourceVersion
}
