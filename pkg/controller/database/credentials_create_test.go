package database

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func count(ws []string, w string) int {
	n := 0
	for _, x := range ws {
		if x == w {
			n++
		}
	}
	return n
}

// A new database's Secrets are created once each in its first pass; a
// create that fails is tried again by the credential it belongs to, in
// the same pass, and only a failure that persists is reported.
func TestNewSecretsCreatedOnceEachAndFailuresRetried(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if n := count(f.allWrites(), "create secrets"); n != 6 {
		t.Fatalf("creates %d, want two per role (its credential, its binding): %v", n, f.allWrites())
	}
	for _, s := range []string{"shop-orders-admin", "shop-orders-rw", "shop-orders-ro"} {
		if f.secret(s) == nil {
			t.Errorf("Secret %s missing", s)
		}
	}

	other := newDatabase("other", pgv1.DatabaseSpec{Name: "billing"})
	f = newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), other})
	failed := false
	f.kube.PrependReactor("create", "secrets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if !failed && a.(k8stesting.CreateAction).GetObject().(interface{ GetName() string }).GetName() == "other-billing-rw" {
			failed = true
			return true, nil, errors.New("transient")
		}
		return false, nil, nil
	})
	if _, err := f.sync("other"); err != nil {
		t.Fatal(err)
	}
	// admin, rw (failed), rw again; then the two bindings.
	if n := count(f.allWrites(), "create secrets"); n != 5 || f.secret("other-billing-rw") == nil {
		t.Errorf("creates %v; want the failed one tried again and made", f.allWrites())
	}
	if _, err := f.syncReported("other"); err != nil {
		t.Fatal(err)
	}
	if c := cond(t, f.db("other"), pgv1.ConditionSecretsReady); c.Status != "True" {
		t.Errorf("SecretsReady = %+v after a failure retried with success", c)
	}
}

// A new database's Secrets are created while its finalizer is added; when
// that patch fails the pass fails (and is retried) with the Secrets in
// place and nothing else: its DatabaseRoles, which need the finalizer's
// cleanup, are written only once the finalizer is stored.
func TestSecretsCreatedAlongsideTheFinalizer(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	f.pg.PrependReactor("patch", "postgresdatabases", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("conflict")
	})
	if _, err := f.sync("shop"); err == nil {
		t.Fatal("a failed finalizer patch did not fail the pass")
	}
	if f.secret("shop-orders-admin") == nil || f.secret("shop-orders-rw") == nil {
		t.Errorf("Secrets not created alongside the patch: %v", f.allWrites())
	}
	if w := f.allWrites(); slices.ContainsFunc(w, func(w string) bool { return strings.HasSuffix(w, " databaseroles") }) {
		t.Errorf("DatabaseRoles written without the finalizer: %v", w)
	}
	if got := f.db("shop"); len(got.Finalizers) != 0 || !neverWritten(&got.Status) {
		t.Errorf("after the failed patch: finalizers %v status %+v", got.Finalizers, got.Status)
	}
}
