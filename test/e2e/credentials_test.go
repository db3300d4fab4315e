package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// Credentials people can live with (issue 17): rotation on request, the
// read-only role, and external Secrets whose changes reach Postgres.

// annotations merge-patches annotations onto a PostgresDatabase or
// PostgresCluster.
func annotatePostgres(t *testing.T, ns, kind, name string, kv map[string]string) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": kv}})
	if err != nil {
		t.Fatal(err)
	}
	switch kind {
	case "PostgresDatabase":
		_, err = pg.PostgresV1alpha1().PostgresDatabases(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{})
	case "PostgresCluster":
		_, err = pg.PostgresV1alpha1().PostgresClusters(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{})
	}
	if err != nil {
		t.Fatalf("annotate %s %s: %v", kind, name, err)
	}
}

// refused reports whether logging in fails because Postgres rejects the
// password (SQLSTATE 28P01), not for any other reason.
func refused(t *testing.T, ns, database, user, password string) bool {
	t.Helper()
	_, err := kit.Login(t, ns, "shop", database, user, password)
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "28P01"
}

func accepted(t *testing.T, ns, database, user, password string) bool {
	t.Helper()
	_, err := kit.Login(t, ns, "shop", database, user, password)
	return err == nil
}

func waitRotated(t *testing.T, ns, name, request string, roles int) *pgv1.PostgresDatabase {
	t.Helper()
	var db *pgv1.PostgresDatabase
	kit.Until(t, 60*time.Second, fmt.Sprintf("PostgresDatabase %s records rotation %s", name, request), func(ctx context.Context) (bool, error) {
		var err error
		db, err = pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		rotated, all := testkit.RotatedFor(db, request)
		return rotated == roles && all == roles, nil
	})
	return db
}

// A rotation request gives every generated role a new password: the old
// one is refused, the new one works, the Secret and ConfigMap keep
// everything else. The same for the superuser, which setpoint itself then
// uses. Converged again, resyncs write nothing.
func TestPasswordRotationOnRequest(t *testing.T) {
	ns := kit.Namespace(t)
	op := readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	names := []string{"app-orders-admin", "app-orders-rw", "app-orders-ro"}
	before := map[string]*corev1.Secret{}
	for _, n := range names {
		before[n] = kit.Secret(t, ns, n)
		mustLogin(t, ns, "shop", "orders", string(before[n].Data["username"]), string(before[n].Data["password"]))
	}
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "app-orders-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	annotatePostgres(t, ns, "PostgresDatabase", "app", map[string]string{pgv1.RotatePasswordsAnnotation: "2026-11-30-a"})
	db := waitRotated(t, ns, "app", "2026-11-30-a", 3)
	if c := condition(t, db.Status.Conditions, pgv1.ConditionPasswordRotation); c.Status != metav1.ConditionTrue || c.Reason != "Rotated" {
		t.Errorf("PasswordRotation = %+v", c)
	}
	for _, n := range names {
		old, cur := before[n], kit.Secret(t, ns, n)
		if string(cur.Data["password"]) == string(old.Data["password"]) {
			t.Errorf("%s: password unchanged", n)
		}
		if !slices.Equal(slices.Sorted(maps.Keys(cur.Data)), slices.Sorted(maps.Keys(old.Data))) ||
			string(cur.Data["username"]) != string(old.Data["username"]) || cur.Type != old.Type ||
			!maps.Equal(cur.Labels, old.Labels) || cur.Annotations[credentials.RotatedForAnnotation] != "2026-11-30-a" {
			t.Errorf("%s changed beyond the password: %+v", n, cur.ObjectMeta)
		}
		user := string(cur.Data["username"])
		kit.PasswordSwitched(t, ns, "shop", "orders", user, string(old.Data["password"]), string(cur.Data["password"]))
	}
	// The rotation never made the database stop being Ready.
	events, err := kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=app"})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if e.Type == corev1.EventTypeWarning {
			t.Errorf("Warning Event during the rotation: %s %s", e.Reason, e.Message)
		}
	}
	cm2, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "app-orders-config", metav1.GetOptions{})
	if err != nil || !maps.Equal(cm.Data, cm2.Data) {
		t.Errorf("ConfigMap changed: %v -> %v (%v)", cm.Data, cm2.Data, err)
	}

	// The superuser.
	su := kit.Secret(t, ns, "shop-superuser")
	annotatePostgres(t, ns, "PostgresCluster", "shop", map[string]string{pgv1.RotatePasswordsAnnotation: "su-1"})
	kit.Until(t, 60*time.Second, "the cluster records the superuser rotation", func(ctx context.Context) (bool, error) {
		pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		return err == nil && pc.Status.SuperuserPasswordRotation != nil && pc.Status.SuperuserPasswordRotation.Request == "su-1", err
	})
	su2 := kit.Secret(t, ns, "shop-superuser")
	if string(su2.Data["password"]) == string(su.Data["password"]) || string(su2.Data["username"]) != "postgres" {
		t.Fatal("superuser password not rotated")
	}
	kit.PasswordSwitched(t, ns, "shop", "postgres", "postgres", string(su.Data["password"]), string(su2.Data["password"]))
	// setpoint works on with the new superuser password: a new database
	// needs it for its grants.
	kit.CreateDatabase(t, ns, "later", "shop", pgv1.DatabaseSpec{Name: "invoices"})
	kit.WaitDatabase(t, ns, "later", pgv1.PhaseReady, 120*time.Second)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 30*time.Second)

	// The rotation is in the log, the passwords are not.
	logs := op.logs()
	if !strings.Contains(logs, "Rotated password") || !strings.Contains(logs, "Rotated superuser password") {
		t.Error("the rotations are not logged")
	}
	for _, n := range append(names, "shop-superuser") {
		if strings.Contains(logs, kit.Password(t, ns, n)) {
			t.Errorf("the operator log holds the new password of %s", n)
		}
	}

	t.Run("zero writes and zero SQL on resync", func(t *testing.T) {
		expectIdle(t, op, "postgresdatabase")
	})
}

// Killed while a request is carried out, the operator leaves each Secret
// either rotated for the request (password and request id, one write) or
// untouched; its successor finishes the request without rotating any
// Secret twice.
func TestRotationSurvivesOperatorKill(t *testing.T) {
	ns := kit.Namespace(t)
	op := readyCluster(t, ns)
	const dbs = 3
	for i := range dbs {
		kit.CreateDatabase(t, ns, fmt.Sprintf("app%d", i), "shop", pgv1.DatabaseSpec{Name: fmt.Sprintf("db%d", i), ReadOnlyRole: true})
	}
	for i := range dbs {
		kit.WaitDatabase(t, ns, fmt.Sprintf("app%d", i), pgv1.PhaseReady, 120*time.Second)
	}
	secretsOf := func() map[string]*corev1.Secret {
		list, err := kube.CoreV1().Secrets(ns).List(t.Context(), metav1.ListOptions{LabelSelector: ownership.DatabaseLabel})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*corev1.Secret{}
		for i := range list.Items {
			// The credentials; their binding Secrets follow them.
			if list.Items[i].Type == corev1.SecretTypeBasicAuth {
				out[list.Items[i].Name] = &list.Items[i]
			}
		}
		return out
	}
	before := secretsOf()
	if len(before) != 3*dbs {
		t.Fatalf("%d database Secrets, want %d", len(before), 3*dbs)
	}
	// The kill must land mid-rotation: an operator whose client may send
	// one request a second rotates the nine Secrets over seconds, not
	// milliseconds. (Converged objects cost it no request to take over.)
	op.signal(syscall.SIGTERM)
	<-op.done
	op = startOperator(t, "slow", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap,
		"--resync-period", "2s", "--kube-api-qps", "1", "--kube-api-burst", "1")
	const request = "kill-1"
	for i := range dbs {
		annotatePostgres(t, ns, "PostgresDatabase", fmt.Sprintf("app%d", i), map[string]string{pgv1.RotatePasswordsAnnotation: request})
	}
	kit.Until(t, 30*time.Second, "a first Secret rotated", func(context.Context) (bool, error) {
		for _, s := range secretsOf() {
			if s.Annotations[credentials.RotatedForAnnotation] == request {
				return true, nil
			}
		}
		return false, nil
	})
	op.signal(syscall.SIGKILL)
	<-op.done
	atKill := secretsOf()
	rotated := 0
	for name, s := range atKill {
		old := string(before[name].Data["password"])
		switch s.Annotations[credentials.RotatedForAnnotation] {
		case request:
			rotated++
			if string(s.Data["password"]) == old {
				t.Errorf("%s carries the request id without a new password", name)
			}
		case "":
			if string(s.Data["password"]) != old {
				t.Errorf("%s has a new password without the request id", name)
			}
		default:
			t.Errorf("%s: unexpected request %q", name, s.Annotations[credentials.RotatedForAnnotation])
		}
	}
	if rotated == len(atKill) {
		t.Fatalf("all %d Secrets were rotated before the kill: the test proves nothing", rotated)
	}
	t.Logf("killed with %d of %d Secrets rotated", rotated, len(atKill))

	startOperator(t, "second", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s")
	for i := range dbs {
		waitRotated(t, ns, fmt.Sprintf("app%d", i), request, 3)
	}
	final := secretsOf()
	for name, s := range final {
		pw := string(s.Data["password"])
		if atKill[name].Annotations[credentials.RotatedForAnnotation] == request && pw != string(atKill[name].Data["password"]) {
			t.Errorf("%s was rotated twice for one request", name)
		}
		if pw == string(before[name].Data["password"]) {
			t.Errorf("%s was never rotated", name)
		}
		db := fmt.Sprintf("db%c", name[3])
		kit.PasswordSwitched(t, ns, "shop", db, string(s.Data["username"]), string(before[name].Data["password"]), pw)
	}
}

// <db>_ro reads what <db>_admin creates after the grants and cannot
// write; removing the flag drops it with Delete and keeps it with Retain.
func TestReadOnlyRole(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "app", "shop",
		pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true},
		pgv1.DatabaseSpec{Name: "catalog", ReadOnlyRole: true, DeletionPolicy: pgv1.DeletionPolicyRetain})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "app-orders-config", metav1.GetOptions{})
	if err != nil || cm.Data["ro-user"] != "orders_ro" || cm.Data["ro-secret"] != "app-orders-ro" {
		t.Fatalf("ConfigMap = %v (%v)", cm.Data, err)
	}

	admin := connectAs(t, ns, "app-orders-config", "app-orders-admin")
	execSQL(t, admin, "CREATE TABLE later (id bigserial PRIMARY KEY, v text)")
	execSQL(t, admin, "INSERT INTO later (v) VALUES ('seen')")
	ro := connectAs(t, ns, "app-orders-config", cm.Data["ro-secret"])
	if got := queryString(t, ro, "SELECT v FROM later"); got != "seen" {
		t.Errorf("ro reads %q", got)
	}
	_, err = ro.Exec(t.Context(), "INSERT INTO later (v) VALUES ('no')")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Errorf("ro INSERT: %v, want insufficient_privilege (42501)", err)
	}
	catalogRO := kit.Secret(t, ns, "app-catalog-ro")

	// The flag removed from both databases.
	db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range db.Spec.Databases {
		db.Spec.Databases[i].ReadOnlyRole = false
	}
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	su := dial(t, ns, "shop", "postgres", "shop-superuser", "shop-ca")
	roles := func() []string {
		rows, err := su.Query(t.Context(), "SELECT rolname::text FROM pg_roles WHERE rolname LIKE '%\\_ro' ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var r string
			if err := rows.Scan(&r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	if got := roles(); !slices.Equal(got, []string{"catalog_ro"}) {
		t.Errorf("read-only roles in Postgres = %v, want only catalog_ro (Retain)", got)
	}
	if _, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "app-orders-ro", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Secret app-orders-ro after Delete: %v", err)
	}
	kept := kit.Secret(t, ns, "app-catalog-ro")
	if string(kept.Data["password"]) != string(catalogRO.Data["password"]) || len(kept.OwnerReferences) != 0 || kept.Labels[ownership.RetainedLabel] != "true" {
		t.Errorf("Secret app-catalog-ro not kept as it was: %+v", kept.ObjectMeta)
	}
	mustLogin(t, ns, "shop", "catalog", "catalog_ro", string(kept.Data["password"]))
	cm, err = kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "app-orders-config", metav1.GetOptions{})
	if _, has := cm.Data["ro-user"]; err != nil || has {
		t.Errorf("ConfigMap still names the read-only role: %v (%v)", cm.Data, err)
	}
	// The others are untouched.
	rw := connectAs(t, ns, "app-orders-config", "app-orders-rw")
	execSQL(t, rw, "INSERT INTO later (v) VALUES ('still writable')")

	// On again, on databases that exist: orders gets a new role that reads
	// the existing table, catalog takes its retained role and password back.
	if db, err = pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "app", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range db.Spec.Databases {
		db.Spec.Databases[i].ReadOnlyRole = true
	}
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	ro = connectAs(t, ns, "app-orders-config", "app-orders-ro")
	if got := queryString(t, ro, "SELECT count(*)::text FROM later"); got != "2" {
		t.Errorf("the new ro role reads %s rows of the existing table, want 2", got)
	}
	back := kit.Secret(t, ns, "app-catalog-ro")
	if string(back.Data["password"]) != string(catalogRO.Data["password"]) || back.Labels[ownership.RetainedLabel] == "true" || len(back.OwnerReferences) != 1 {
		t.Errorf("catalog's retained ro Secret not taken back as it was: %+v", back.ObjectMeta)
	}
	mustLogin(t, ns, "shop", "catalog", "catalog_ro", string(back.Data["password"]))
}

// With passwordConfig.reloadOnChange a password changed in the user's
// Secret reaches Postgres; setpoint adds only the reload label and never
// rotates that Secret.
func TestExternalSecretChangeReachesPostgres(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	ext := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "vault-rw", Namespace: ns, Labels: map[string]string{"team": "orders"}},
		Type:       corev1.SecretTypeBasicAuth,
		Data:       map[string][]byte{"username": []byte("orders_rw"), "password": []byte("first-password-1")},
	}
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), ext, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", PasswordConfig: &pgv1.DatabasePasswordConfig{
		RWSecretRef: &pgv1.LocalObjectReference{Name: "vault-rw"}, ReloadOnChange: true}})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	got := kit.Secret(t, ns, "vault-rw")
	if !maps.Equal(got.Labels, map[string]string{"team": "orders", ownership.ReloadLabel: "true"}) ||
		string(got.Data["password"]) != "first-password-1" || len(got.OwnerReferences) != 0 || len(got.Annotations) != 0 {
		t.Fatalf("external Secret = %+v", got.ObjectMeta)
	}
	mustLogin(t, ns, "shop", "orders", "orders_rw", "first-password-1")

	got.Data["password"] = []byte("second-password-2")
	if _, err := kube.CoreV1().Secrets(ns).Update(t.Context(), got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.PasswordSwitched(t, ns, "shop", "orders", "orders_rw", "first-password-1", "second-password-2")

	// A rotation request never writes it, and says so.
	annotatePostgres(t, ns, "PostgresDatabase", "app", map[string]string{pgv1.RotatePasswordsAnnotation: "r1"})
	kit.Until(t, 30*time.Second, "PasswordRotation names the external Secret", func(ctx context.Context) (bool, error) {
		db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "app", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range db.Status.Conditions {
			// The generated admin password is rotated all the same.
			admin := db.Status.Databases[0].Roles[0].LastRotation
			if c.Type == pgv1.ConditionPasswordRotation && c.Reason == "ExternalSecretNotRotated" && admin != nil && admin.Request == "r1" {
				return true, nil
			}
		}
		return false, nil
	})
	if s := kit.Secret(t, ns, "vault-rw"); string(s.Data["password"]) != "second-password-2" || len(s.Annotations) != 0 {
		t.Errorf("external Secret written by a rotation request: %+v", s.ObjectMeta)
	}
}

// A database made before this version — no readOnlyRole, no request — keeps
// its Secrets byte for byte and untouched (same resourceVersion) when a new
// operator takes over and resyncs it.
func TestExistingPasswordsSurviveUpgrade(t *testing.T) {
	ns := kit.Namespace(t)
	op := readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	names := []string{"app-orders-admin", "app-orders-rw", "shop-superuser"}
	before := map[string]*corev1.Secret{}
	for _, n := range names {
		before[n] = kit.Secret(t, ns, n)
		if len(before[n].Annotations) != 0 {
			t.Errorf("%s carries annotations without any request: %v", n, before[n].Annotations)
		}
	}
	op.signal(syscall.SIGTERM)
	<-op.done
	next := startOperator(t, "next", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s")
	expectIdle(t, next, "postgresdatabase")
	for _, n := range names {
		s := kit.Secret(t, ns, n)
		if s.ResourceVersion != before[n].ResourceVersion || !maps.EqualFunc(s.Data, before[n].Data, func(a, b []byte) bool { return string(a) == string(b) }) {
			t.Errorf("%s changed under the new operator", n)
		}
		mustLogin(t, ns, "shop", "orders", string(s.Data["username"]), string(s.Data["password"]))
	}
}
