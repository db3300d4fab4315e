package database

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// annotate sets annotations on the PostgresDatabase through the fake API.
func (f *fixture) annotate(name string, kv map[string]string) {
	f.t.Helper()
	db := f.db(name)
	if db.Annotations == nil {
		db.Annotations = map[string]string{}
	}
	for k, v := range kv {
		db.Annotations[k] = v
	}
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(f.t.Context(), db, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) passwords(names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		out[n] = string(f.secret(n).Data["password"])
	}
	return out
}

func roleStatus(t *testing.T, db *pgv1.PostgresDatabase, role string) pgv1.RoleStatus {
	t.Helper()
	for _, e := range db.Status.Databases {
		for _, r := range e.Roles {
			if r.Name == role {
				return r
			}
		}
	}
	t.Fatalf("no role %s in %+v", role, db.Status.Databases)
	return pgv1.RoleStatus{}
}

// A request rotates every generated password once, in one write per
// Secret that carries the request id; a second pass does nothing; a new
// request naming one role rotates only that one.
func TestRotationRequestIsDoneExactlyOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	converge(t, f, "shop")
	secrets := []string{"shop-orders-admin", "shop-orders-rw"}
	before := f.passwords(secrets...)

	f.annotate("shop", map[string]string{pgv1.RotatePasswordsAnnotation: "r1"})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); !slices.Equal(w, []string{"patch secrets", "patch secrets", "patch secrets", "patch secrets", "update postgresdatabases/status"}) {
		t.Errorf("rotation pass wrote %v, want one patch per Secret and its binding, and one status write", w)
	}
	// Each patch: a new password and the request's marks, guarded by the
	// Secret's version, nothing else.
	rotatedAt := f.clock.Now().UTC().Format(time.RFC3339)
	for _, s := range secrets {
		f.expectSent("patch", "secrets", s, `{"metadata":{"resourceVersion":"`+ct.AnyVersion+`",
			"annotations":{"postgres.setpoint.dev/password-rotated-for":"r1","postgres.setpoint.dev/password-rotated-at":"`+rotatedAt+`"}},
			"data":{"password":"(new)"}}`, randomPassword)
	}
	after := f.passwords(secrets...)
	for _, role := range []string{"orders_admin", "orders_rw"} {
		s := "shop-" + strings.ReplaceAll(role, "_", "-")
		if after[s] == before[s] || len(after[s]) < 20 {
			t.Errorf("%s: password not rotated", s)
		}
		// The binding follows in the same pass.
		if b := f.passwords(s + "-binding")[s+"-binding"]; b != after[s] {
			t.Errorf("%s-binding: password not the rotated one", s)
		}
		// The rest of the Secret as it was.
		want := shopSecret(role)
		want.Annotations = map[string]string{"postgres.setpoint.dev/password-rotated-for": "r1", "postgres.setpoint.dev/password-rotated-at": rotatedAt}
		f.expectStored(want, f.secret(s), randomPassword)
	}
	db := f.db("shop")
	for _, r := range []string{"orders_admin", "orders_rw"} {
		if lr := roleStatus(t, db, r).LastRotation; lr == nil || lr.Request != "r1" || lr.RotatedAt.IsZero() {
			t.Errorf("%s lastRotation = %+v", r, lr)
		}
	}
	if c := cond(t, db, pgv1.ConditionPasswordRotation); c.Status != metav1.ConditionTrue || c.Reason != "Rotated" {
		t.Errorf("PasswordRotation = %+v", c)
	}
	for _, c := range db.Status.Conditions {
		for _, p := range after {
			if strings.Contains(c.Message, p) {
				t.Errorf("condition %s leaks a password", c.Type)
			}
		}
	}

	// Done: the next pass writes nothing and runs no SQL.
	execs := len(f.sql.execs)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); len(w) != 0 || len(f.sql.execs) != execs {
		t.Errorf("pass after the rotation wrote %v, SQL %d", w, len(f.sql.execs)-execs)
	}

	// A new request for the rw role only.
	f.annotate("shop", map[string]string{pgv1.RotatePasswordsAnnotation: "r2", pgv1.RotatePasswordsRolesAnnotation: "rw"})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	again := f.passwords(secrets...)
	if again["shop-orders-admin"] != after["shop-orders-admin"] || again["shop-orders-rw"] == after["shop-orders-rw"] {
		t.Errorf("request for rw: admin changed %v, rw changed %v",
			again["shop-orders-admin"] != after["shop-orders-admin"], again["shop-orders-rw"] != after["shop-orders-rw"])
	}
	db = f.db("shop")
	if lr := roleStatus(t, db, "orders_admin").LastRotation; lr == nil || lr.Request != "r1" {
		t.Errorf("admin lastRotation = %+v, want r1 kept", lr)
	}
	if lr := roleStatus(t, db, "orders_rw").LastRotation; lr == nil || lr.Request != "r2" {
		t.Errorf("rw lastRotation = %+v", lr)
	}

	// The annotation removed: the condition goes, the record stays.
	db.Annotations = nil
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	db = f.db("shop")
	if slices.ContainsFunc(db.Status.Conditions, func(c metav1.Condition) bool { return c.Type == pgv1.ConditionPasswordRotation }) {
		t.Error("PasswordRotation condition kept without a request")
	}
	if lr := roleStatus(t, db, "orders_rw").LastRotation; lr == nil || lr.Request != "r2" {
		t.Errorf("rw lastRotation after the request left = %+v", lr)
	}
}

// What the Secret says is what was done: a Secret already carrying the
// request id (the operator died after writing it, before status) is not
// rotated again, and status catches up.
func TestRotationDoneInSecretIsNotRepeated(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	converge(t, f, "shop")
	for _, name := range []string{"shop-orders-admin", "shop-orders-rw"} {
		s := f.secret(name)
		s.Annotations = map[string]string{credentials.RotatedForAnnotation: "r1", credentials.RotatedAtAnnotation: "2026-01-02T03:04:05Z"}
		if _, err := f.kube.CoreV1().Secrets(ns).Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	before := f.passwords("shop-orders-admin", "shop-orders-rw")
	f.annotate("shop", map[string]string{pgv1.RotatePasswordsAnnotation: "r1"})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); !slices.Equal(w, []string{"update postgresdatabases/status"}) {
		t.Errorf("writes = %v, want only the status catching up", w)
	}
	if after := f.passwords("shop-orders-admin", "shop-orders-rw"); after["shop-orders-admin"] != before["shop-orders-admin"] || after["shop-orders-rw"] != before["shop-orders-rw"] {
		t.Error("a request already done was rotated again")
	}
	if lr := roleStatus(t, f.db("shop"), "orders_admin").LastRotation; lr == nil || lr.Request != "r1" || lr.RotatedAt.UTC().Year() != 2026 {
		t.Errorf("lastRotation = %+v", lr)
	}
}

// External Secrets are never written: a request naming them is reported.
func TestRotationNeverWritesExternalSecrets(t *testing.T) {
	t.Parallel()
	ext := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "vault-rw", Namespace: ns}, Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("orders_rw"), "password": []byte("mine")}}
	spec := pgv1.DatabaseSpec{Name: "orders", PasswordConfig: &pgv1.DatabasePasswordConfig{RWSecretRef: &pgv1.LocalObjectReference{Name: "vault-rw"}}}
	f := newFixture(t, append(clusterSecrets(), ext), []runtime.Object{readyCluster(), newDatabase("shop", spec)})
	converge(t, f, "shop")
	f.annotate("shop", map[string]string{pgv1.RotatePasswordsAnnotation: "r1"})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	for _, a := range f.kube.Actions() {
		if a.GetVerb() == "patch" && strings.Contains(a.(interface{ GetName() string }).GetName(), "vault") {
			t.Errorf("external Secret written: %v", a)
		}
	}
	if string(f.secret("vault-rw").Data["password"]) != "mine" || f.secret("vault-rw").Annotations != nil {
		t.Error("external Secret changed")
	}
	c := cond(t, f.db("shop"), pgv1.ConditionPasswordRotation)
	if c.Status != metav1.ConditionFalse || c.Reason != "ExternalSecretNotRotated" || !strings.Contains(c.Message, `orders_rw (Secret "vault-rw")`) {
		t.Errorf("PasswordRotation = %+v", c)
	}
	if lr := roleStatus(t, f.db("shop"), "orders_admin").LastRotation; lr == nil || lr.Request != "r1" {
		t.Errorf("the generated admin password was not rotated: %+v", lr)
	}
}

// With passwordConfig.reloadOnChange the user's Secret gets cnpg.io/reload
// and nothing else; without it, nothing at all.
func TestReloadOnChangeLabelsOnlyWithConsent(t *testing.T) {
	t.Parallel()
	for _, consent := range []bool{false, true} {
		ext := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "vault-rw", Namespace: ns, Labels: map[string]string{"team": "a"}},
			Type: corev1.SecretTypeBasicAuth, Data: map[string][]byte{"username": []byte("orders_rw"), "password": []byte("mine")}}
		spec := pgv1.DatabaseSpec{Name: "orders", PasswordConfig: &pgv1.DatabasePasswordConfig{
			RWSecretRef: &pgv1.LocalObjectReference{Name: "vault-rw"}, ReloadOnChange: consent}}
		f := newFixture(t, append(clusterSecrets(), ext), []runtime.Object{readyCluster(), newDatabase("shop", spec)})
		converge(t, f, "shop")
		got := f.secret("vault-rw")
		want := map[string]string{"team": "a"}
		if consent {
			want[ownership.ReloadLabel] = "true"
		}
		if !mapsEqual(got.Labels, want) || string(got.Data["password"]) != "mine" || got.Annotations != nil || len(got.OwnerReferences) != 0 {
			t.Errorf("consent %v: external Secret = %+v", consent, got.ObjectMeta)
		}
		// Converged: no further write.
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		if w := f.allWrites(); len(w) != 0 {
			t.Errorf("consent %v: idle pass wrote %v", consent, w)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A Secret created while a request is pending already answers it.
func TestSecretCreatedDuringRequestIsNotRotatedAgain(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	db.Annotations = map[string]string{pgv1.RotatePasswordsAnnotation: "r1"}
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	converge(t, f, "shop")
	first := f.passwords("shop-orders-admin")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if f.passwords("shop-orders-admin")["shop-orders-admin"] != first["shop-orders-admin"] {
		t.Error("a Secret generated under the request was rotated")
	}
	if c := cond(t, f.db("shop"), pgv1.ConditionPasswordRotation); c.Reason != "Rotated" {
		t.Errorf("PasswordRotation = %+v", c)
	}
}

// A roles annotation with a typo is said in status; the valid items are
// carried out.
func TestRotationRolesTypoIsReported(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	converge(t, f, "shop")
	before := f.passwords("shop-orders-admin", "shop-orders-rw")
	f.annotate("shop", map[string]string{pgv1.RotatePasswordsAnnotation: "r1", pgv1.RotatePasswordsRolesAnnotation: "rw, admn"})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	after := f.passwords("shop-orders-admin", "shop-orders-rw")
	if after["shop-orders-admin"] != before["shop-orders-admin"] || after["shop-orders-rw"] == before["shop-orders-rw"] {
		t.Error("only rw should have been rotated")
	}
	c := cond(t, f.db("shop"), pgv1.ConditionPasswordRotation)
	if c.Status != metav1.ConditionFalse || c.Reason != "UnknownRoles" || !strings.Contains(c.Message, "names admn,") || !strings.Contains(c.Message, "1 of 1 password(s) rotated") {
		t.Errorf("PasswordRotation = %+v", c)
	}
}
