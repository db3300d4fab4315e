package realcnpg

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// rotation asks for new passwords of every generated role of PostgresDatabase
// app (orders, with a read-only role) and of the superuser: real CNPG
// applies each through the Secret's cnpg.io/reload label, so the new
// password logs in and the old one is refused.
func rotation(t *testing.T, ns string) {
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)
	names := []string{"app-orders-admin", "app-orders-rw", "app-orders-ro"}
	before := map[string]*corev1.Secret{}
	for _, n := range names {
		before[n] = kit.Secret(t, ns, n)
		kit.ConnectAs(t, ns, "shop", "orders", n)
	}
	annotate(t, ns, "app", func(name string, patch []byte) error {
		_, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}, pgv1.RotatePasswordsAnnotation, "real-1")
	start := time.Now()
	kit.Eventually(t, 2*time.Minute, "every role of app records rotation real-1", func(ctx context.Context) (bool, string, error) {
		db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "app", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		rotated, _ := testkit.RotatedFor(db, "real-1")
		return rotated == 3, testkit.Conditions(db.Status.Phase, db.Status.Conditions), nil
	})
	for _, n := range names {
		old, cur := before[n], kit.Secret(t, ns, n)
		if string(cur.Data["password"]) == string(old.Data["password"]) || cur.Annotations[credentials.RotatedForAnnotation] != "real-1" {
			t.Errorf("%s: password unchanged or request not recorded (%v)", n, cur.Annotations)
			continue
		}
		kit.PasswordSwitched(t, ns, "shop", "orders", string(cur.Data["username"]), string(old.Data["password"]), string(cur.Data["password"]))
		t.Logf("%s: new password in Postgres %s after the request", n, time.Since(start).Round(100*time.Millisecond))
	}
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, time.Minute)

	su := kit.Secret(t, ns, "shop-superuser")
	annotate(t, ns, "shop", func(name string, patch []byte) error {
		_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}, pgv1.RotatePasswordsAnnotation, "su-1")
	start = time.Now()
	kit.Eventually(t, 2*time.Minute, "the cluster records the superuser rotation", func(ctx context.Context) (bool, string, error) {
		pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return pc.Status.SuperuserPasswordRotation != nil && pc.Status.SuperuserPasswordRotation.Request == "su-1",
			testkit.Conditions(pc.Status.Phase, pc.Status.Conditions), nil
	})
	su2 := kit.Secret(t, ns, "shop-superuser")
	if string(su2.Data["password"]) == string(su.Data["password"]) {
		t.Fatal("superuser password not rotated")
	}
	kit.PasswordSwitched(t, ns, "shop", "postgres", "postgres", string(su.Data["password"]), string(su2.Data["password"]))
	t.Logf("superuser: new password in Postgres %s after the request", time.Since(start).Round(100*time.Millisecond))
}

// readOnlyOff removes orders' read-only role (policy Delete): setpoint
// revokes its privileges and deletes its DatabaseRole, real CNPG drops the
// role (its cnpg.io/deleteRole finalizer), and setpoint then deletes the
// Secret.
func readOnlyOff(t *testing.T, ns string) {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "app", metav1.GetOptions{})
		if err != nil {
			return err
		}
		db.Spec.Databases[0].ReadOnlyRole = false
		_, err = pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 2*time.Minute)
	su := kit.ConnectAs(t, ns, "shop", "postgres", "shop-superuser")
	if exists(t, su, roleSQL, "orders_ro") {
		t.Error("role orders_ro still in Postgres after readOnlyRole was removed (policy Delete)")
	}
	if !exists(t, su, roleSQL, "orders_rw") {
		t.Error("role orders_rw gone with the read-only role")
	}
	for what, get := range map[string]func(context.Context) error{
		"Secret app-orders-ro": func(ctx context.Context) error {
			_, err := kube.CoreV1().Secrets(ns).Get(ctx, "app-orders-ro", metav1.GetOptions{})
			return err
		},
		"DatabaseRole shop.orders-ro": func(ctx context.Context) error {
			_, err := pg.CNPGV1().DatabaseRoles(ns).Get(ctx, "shop.orders-ro", metav1.GetOptions{})
			return err
		},
	} {
		if err := get(t.Context()); !apierrors.IsNotFound(err) {
			t.Errorf("%s after readOnlyRole was removed: %v", what, err)
		}
	}
}

// externalSecret runs a database whose rw role takes its password from the
// user's Secret with reloadOnChange: setpoint adds only the reload label,
// and a password changed in that Secret reaches Postgres through real
// CNPG.
func externalSecret(t *testing.T, ns string) {
	ext := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "vault-billing-rw", Namespace: ns, Labels: map[string]string{"team": "billing"}},
		Type:       corev1.SecretTypeBasicAuth,
		Data:       map[string][]byte{"username": []byte("billing_rw"), "password": []byte("first-password-1")},
	}
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), ext, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.CreateDatabase(t, ns, "billing", "shop", pgv1.DatabaseSpec{Name: "billing", PasswordConfig: &pgv1.DatabasePasswordConfig{
		RWSecretRef: &pgv1.LocalObjectReference{Name: "vault-billing-rw"}, ReloadOnChange: true}})
	kit.WaitDatabase(t, ns, "billing", pgv1.PhaseReady, 2*time.Minute)
	got := kit.Secret(t, ns, "vault-billing-rw")
	if len(got.Labels) != 2 || got.Labels["team"] != "billing" || got.Labels[ownership.ReloadLabel] != "true" ||
		len(got.OwnerReferences) != 0 || len(got.Annotations) != 0 {
		t.Errorf("the user's Secret after setpoint: labels %v, owners %v, annotations %v; want only the reload label added",
			got.Labels, got.OwnerReferences, got.Annotations)
	}
	if _, err := kit.Login(t, ns, "shop", "billing", "billing_rw", "first-password-1"); err != nil {
		t.Fatalf("billing_rw with the user's password: %v", err)
	}
	got.Data["password"] = []byte("second-password-2")
	if _, err := kube.CoreV1().Secrets(ns).Update(t.Context(), got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.PasswordSwitched(t, ns, "shop", "billing", "billing_rw", "first-password-1", "second-password-2")
	kit.WaitDatabase(t, ns, "billing", pgv1.PhaseReady, time.Minute)
}

// annotate sets one annotation with a merge patch through apply.
func annotate(t *testing.T, ns, name string, apply func(name string, patch []byte) error, key, value string) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{key: value}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := apply(name, patch); err != nil {
		t.Fatalf("annotate %s/%s: %v", ns, name, err)
	}
}

const (
	dbSQL   = "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)"
	roleSQL = "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)"
)

// exists runs one of the EXISTS queries above for name.
func exists(t *testing.T, conn *pgx.Conn, sql, name string) bool {
	t.Helper()
	var found bool
	if err := conn.QueryRow(t.Context(), sql, name).Scan(&found); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return found
}
