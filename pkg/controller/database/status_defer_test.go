package database

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func statusWritten(f *fixture) bool {
	return slices.Contains(f.allWrites(), "update postgresdatabases/status")
}

func mustSync(t *testing.T, f *fixture, name string) time.Duration {
	t.Helper()
	res, err := f.sync(name)
	if err != nil {
		t.Fatal(err)
	}
	return res.RequeueAfter
}

func readyReasonOf(f *fixture, name string) string {
	db := f.db(name)
	return readyReason(&db.Status, db.Generation)
}

// deferredToApplied brings a database to the pass that applies its CNPG
// Database (status left at the roles wait, the bound started by that pass)
// and returns the fixture. Its first pass defers too (a status never
// written waits for Ready or news), so the roles wait is written when that
// first bound runs out.
func deferredToApplied(t *testing.T) *fixture {
	t.Helper()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	if wait := mustSync(t, f, "shop"); statusWritten(f) || wait != progressReportDelay {
		t.Fatalf("first pass: requeue %v writes %v, want no status write for the bound %v", wait, f.allWrites(), progressReportDelay)
	}
	f.clock.Step(progressReportDelay)
	mustSync(t, f, "shop")
	if !hasClaim(f.db("shop")) || readyReasonOf(f, "shop") != "RolesPending" {
		t.Fatalf("write at the bound: %s %+v, want the roles wait with the claim", readyReasonOf(f, "shop"), f.db("shop").Status.Databases)
	}
	f.clock.Step(time.Second)
	f.applyRoles()
	if wait := mustSync(t, f, "shop"); wait != progressReportDelay {
		t.Errorf("first deferral requeues after %v, want the whole bound %v", wait, progressReportDelay)
	}
	if statusWritten(f) || readyReasonOf(f, "shop") != "RolesPending" {
		t.Fatalf("status after the apply: %s, writes %v; want the roles wait left in place", readyReasonOf(f, "shop"), f.allWrites())
	}
	return f
}

// hasClaim: the status names the validated Secrets and the roles.
func hasClaim(db *pgv1.PostgresDatabase) bool {
	if len(db.Status.Databases) == 0 {
		return false
	}
	e := db.Status.Databases[0]
	return e.AdminSecretRef != nil && e.RWSecretRef != nil && len(e.Roles) == 2
}

// Within the bound, a pass woken by the new CNPG Database itself writes
// nothing and asks to come back when the bound ends.
func TestApplyingWaitDeferredWithinBound(t *testing.T) {
	t.Parallel()
	f := deferredToApplied(t)
	f.clock.Step(4 * time.Second)
	wait := mustSync(t, f, "shop")
	if statusWritten(f) {
		t.Errorf("status written within the bound: %v", f.allWrites())
	}
	if wait != progressReportDelay-4*time.Second {
		t.Errorf("requeue %v, want the rest of the bound %v", wait, progressReportDelay-4*time.Second)
	}
}

// Past the bound the wait is said: DatabaseApplying is written, and the
// next deferral would start a bound of its own.
func TestApplyingWaitWrittenPastBound(t *testing.T) {
	t.Parallel()
	f := deferredToApplied(t)
	f.clock.Step(progressReportDelay)
	if wait := mustSync(t, f, "shop"); wait != provisionRecheck {
		t.Errorf("requeue %v after the write, want the wait's own recheck %v", wait, provisionRecheck)
	}
	if r := cond(t, f.db("shop"), pgv1.ConditionDatabasesReady).Reason; r != "DatabaseApplying" {
		t.Errorf("DatabasesReady reason %s, want DatabaseApplying written past the bound", r)
	}
	if _, marked := f.c.stale.since[types.NamespacedName{Namespace: ns, Name: "shop"}]; marked {
		t.Error("still marked stale after the write")
	}
}

// CloudNativePG reporting it could not apply is written at once.
func TestNotAppliedWrittenAtOnce(t *testing.T) {
	t.Parallel()
	f := deferredToApplied(t)
	f.clock.Step(time.Second)
	f.markApplied("shop-orders", false, "role missing")
	mustSync(t, f, "shop")
	if r := cond(t, f.db("shop"), pgv1.ConditionDatabasesReady).Reason; r != "DatabaseNotApplied" {
		t.Errorf("DatabasesReady reason %s, want DatabaseNotApplied at once", r)
	}
}

// notReadyCluster is a PostgresCluster on its way to Ready.
func notReadyCluster() *pgv1.PostgresCluster {
	pc := readyCluster()
	pc.Status.Phase = pgv1.PhaseProvisioning
	pc.Status.Conditions[0].Status = metav1.ConditionFalse
	pc.Status.Conditions[0].Reason = "CNPGSettingUp"
	return pc
}

// A database created with its cluster writes once on its way to Ready
// when it gets there within the bound: the waits for the cluster, the
// roles and CloudNativePG are progress. The bound runs from the first
// deferral, not from each pass.
func TestProgressToReadyWritesOnce(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{notReadyCluster(), db})
	if wait := mustSync(t, f, "shop"); wait != progressReportDelay || statusWritten(f) {
		t.Fatalf("first pass: requeue %v writes %v, want none for %v", wait, f.allWrites(), progressReportDelay)
	}
	if f.secret("shop-orders-admin") == nil || f.secret("shop-orders-rw") == nil {
		t.Fatal("the first pass did not create the Secrets")
	}

	f.clock.Step(2 * time.Second) // the cluster is Ready: on to the roles wait
	f.setCluster(func(pc *pgv1.PostgresCluster) { *pc = *readyCluster() })
	if wait := mustSync(t, f, "shop"); wait != progressReportDelay-2*time.Second || statusWritten(f) {
		t.Errorf("roles wait: requeue %v writes %v, want none for the bound's rest", wait, f.allWrites())
	}

	if !f.hasRole("pg.orders-admin") || !f.hasRole("pg.orders-rw") {
		t.Fatal("the roles wait deferred the DatabaseRoles as well")
	}

	f.clock.Step(10 * time.Second) // roles applied: on to CloudNativePG
	f.applyRoles()
	if wait := mustSync(t, f, "shop"); wait != progressReportDelay-12*time.Second || statusWritten(f) {
		t.Errorf("applying wait: requeue %v writes %v, want none for the bound's rest", wait, f.allWrites())
	}
	if !neverWritten(&f.db("shop").Status) {
		t.Errorf("stored status %+v, want none yet", f.db("shop").Status)
	}

	f.clock.Step(time.Second)
	f.markApplied("shop-orders", true, "")
	mustSync(t, f, "shop")
	if got := f.db("shop"); got.Status.Phase != pgv1.PhaseReady {
		t.Fatalf("phase %s, want Ready written at once", got.Status.Phase)
	}
	if ev := f.events(); len(ev) != 1 || ev[0] != "Normal Ready phase (none) -> Ready: 1 database(s) ready" {
		t.Errorf("events %q, want the Ready Event of what was written", ev)
	}
}

// Repeated passes (every event of a busy cluster wakes one) never move
// the bound: the wait is written once it has run out from the first.
func TestDeferralNotRenewedByPasses(t *testing.T) {
	t.Parallel()
	f := deferredToApplied(t)
	for i := range 5 {
		f.clock.Step(5 * time.Second)
		wait := mustSync(t, f, "shop")
		if want := progressReportDelay - time.Duration(i+1)*5*time.Second; wait != want || statusWritten(f) {
			t.Fatalf("pass %d: requeue %v writes %v, want none and %v", i, wait, f.allWrites(), want)
		}
	}
	f.clock.Step(5 * time.Second)
	mustSync(t, f, "shop")
	if !statusWritten(f) || readyReasonOf(f, "shop") != "DatabaseApplying" {
		t.Errorf("at the bound: writes %v, stored %s; want DatabaseApplying written", f.allWrites(), readyReasonOf(f, "shop"))
	}
}

// A move back (the cluster is no longer Ready) is news, not progress.
func TestRegressionWrittenAtOnce(t *testing.T) {
	t.Parallel()
	f := deferredToApplied(t)
	f.clock.Step(time.Second)
	f.setCluster(func(pc *pgv1.PostgresCluster) { *pc = *notReadyCluster() })
	mustSync(t, f, "shop")
	if r := readyReasonOf(f, "shop"); r != "ClusterNotReady" {
		t.Errorf("stored %s, want ClusterNotReady written at once", r)
	}
}

// A failure is written at once, with its Event: here the CNPG Database
// turns out not to be ours.
func TestFailureNeverDeferred(t *testing.T) {
	t.Parallel()
	f := deferredToApplied(t)
	f.events()
	f.clock.Step(time.Second)
	d := f.cnpgDB("shop-orders")
	d.OwnerReferences = nil
	if _, err := f.pg.CNPGV1().Databases(ns).Update(t.Context(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	mustSync(t, f, "shop")
	if got := f.db("shop"); got.Status.Phase != pgv1.PhaseFailed || readyReasonOf(f, "shop") != "DatabaseConflict" {
		t.Errorf("stored %s %s, want Failed DatabaseConflict written at once", got.Status.Phase, readyReasonOf(f, "shop"))
	}
	if ev := f.events(); len(ev) != 1 {
		t.Errorf("events %q, want the failure's Event", ev)
	}
}

// A new generation is written at once, whatever the wait.
func TestNewGenerationNeverDeferred(t *testing.T) {
	t.Parallel()
	f := deferredToApplied(t)
	f.clock.Step(time.Second)
	db := f.db("shop")
	db.Generation = 2
	if _, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	mustSync(t, f, "shop")
	if got := f.db("shop"); got.Status.ObservedGeneration != 2 {
		t.Errorf("observedGeneration %d, want generation 2 written at once", got.Status.ObservedGeneration)
	}
}

// The claim is never deferred: a status that does not name the Secrets
// yet is written, whatever the wait.
func TestClaimNeverDeferred(t *testing.T) {
	t.Parallel()
	stored := &pgv1.PostgresDatabaseStatus{Phase: pgv1.PhasePending, Databases: []pgv1.DatabaseStatus{{Name: "orders"}}}
	next := stored.DeepCopy()
	next.Databases[0].AdminSecretRef = &pgv1.LocalObjectReference{Name: "shop-orders-admin"}
	if sameApartFromProgress(stored, next) {
		t.Error("a new Secret reference counted as progress")
	}
	next = stored.DeepCopy()
	next.Databases[0].Roles = []pgv1.RoleStatus{{Name: "orders_admin", Ensure: pgv1.RoleEnsurePresent}}
	if sameApartFromProgress(stored, next) {
		t.Error("a new role counted as progress")
	}
	next = stored.DeepCopy()
	next.Databases[0].ConfigMapRef = &pgv1.LocalObjectReference{Name: "shop-orders-config"}
	if !sameApartFromProgress(stored, next) {
		t.Error("a connection-info ConfigMap published since not counted as progress")
	}
	if sameApartFromProgress(next, stored) {
		t.Error("a connection-info ConfigMap withdrawn counted as progress")
	}
}

// The mark is per object and UID, set once, and gone when cleared.
func TestStaleSinceMark(t *testing.T) {
	t.Parallel()
	var s staleSince
	key := types.NamespacedName{Namespace: ns, Name: "shop"}
	t0 := time.Unix(1000, 0)
	if left := s.left(key, "a", t0); left != progressReportDelay {
		t.Errorf("first mark leaves %v", left)
	}
	if left := s.left(key, "a", t0.Add(10*time.Second)); left != progressReportDelay-10*time.Second {
		t.Errorf("second look leaves %v, want the mark kept", left)
	}
	if left := s.left(key, "b", t0.Add(10*time.Second)); left != progressReportDelay {
		t.Errorf("a recreated object inherits the mark: %v left", left)
	}
	s.clear(key)
	if left := s.left(key, "b", t0.Add(20*time.Second)); left != progressReportDelay {
		t.Errorf("after clear %v left, want a new bound", left)
	}
}

// A database with a password Secret of the user's own defers its first
// status like any other: nothing reads the claim from the status any more,
// the DatabaseRole names the Secret CloudNativePG sets the password from.
func TestFirstStatusWithUserSecretDeferred(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders",
		PasswordConfig: &pgv1.DatabasePasswordConfig{AdminSecretRef: &pgv1.LocalObjectReference{Name: "mine"}}})
	mine := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: ns}, Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("orders_admin"), "password": []byte("chosen-by-the-user")}}
	f := newFixture(t, append(clusterSecrets(), mine), []runtime.Object{readyCluster(), db})
	if wait := mustSync(t, f, "shop"); statusWritten(f) || wait != progressReportDelay {
		t.Errorf("first pass: requeue %v writes %v, want no status write for the bound %v", wait, f.allWrites(), progressReportDelay)
	}
	if r := f.role("pg.orders-admin"); r.Spec.PasswordSecret == nil || r.Spec.PasswordSecret.Name != "mine" {
		t.Errorf("DatabaseRole = %+v, want it to name the user's Secret", r.Spec)
	}
	// A rotation request is news: a status that reports on it is written.
	f.annotate("shop", map[string]string{pgv1.RotatePasswordsAnnotation: "r1"})
	mustSync(t, f, "shop")
	if !statusWritten(f) {
		t.Errorf("a pass reporting a rotation request deferred its status: %v", f.allWrites())
	}
}
