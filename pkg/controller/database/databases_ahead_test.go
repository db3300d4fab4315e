package database

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cachelag"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// databaseApplies counts the pass's writes of CNPG Databases.
func databaseApplies(f *fixture) int {
	n := 0
	for _, a := range f.pg.Actions() {
		if a.GetResource().Resource == "databases" && a.GetVerb() == "patch" {
			n++
		}
	}
	return n
}

// A CNPG Database written ahead of its step's turn is not written again
// by a pass whose cache does not show it yet (the pass queued by an event
// that came while the first one worked) — neither ahead nor in the step's
// turn — until the window for the watch to deliver it has run out.
func TestDatabaseAheadIsWrittenOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.applyRoles()
	f.failRole("pg.orders-rw", "not yet")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if n := databaseApplies(f); n != 1 {
		t.Fatalf("%d CNPG Database writes ahead, want 1", n)
	}

	stalePass := func() int {
		f.refresh()
		inf := f.inf.Setpoint.CNPG().V1().Databases().Informer()
		for _, obj := range inf.GetIndexer().List() {
			if err := inf.GetIndexer().Delete(obj); err != nil {
				t.Fatal(err)
			}
		}
		f.pg.ClearActions()
		if _, err := f.c.sync(t.Context(), workqueue.Key{Namespace: ns, Name: "shop"}); err != nil {
			t.Fatal(err)
		}
		return databaseApplies(f)
	}
	if n := stalePass(); n != 0 {
		t.Errorf("written again by a pass whose cache is behind: %d writes", n)
	}
	// Every role applied: the step's own turn, with the cache still
	// behind, writes it no more than the preparation did.
	f.applyRoles()
	if n := stalePass(); n != 0 {
		t.Errorf("written again in the step's turn by a pass whose cache is behind: %d writes", n)
	}
	f.clock.Step(cachelag.CreationWindow)
	if n := stalePass(); n != 1 {
		t.Errorf("%d writes once the window ran out, want the write made again", n)
	}
}
